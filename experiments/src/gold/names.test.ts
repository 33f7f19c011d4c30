import { rredcotVariants } from './methods';
import { canonicalName, needsOf, parseMethodName } from './names';

describe('parseMethodName', () => {
  it('reads every slot of an RREDCoT name, the reference source and the rewrite', () => {
    expect(parseMethodName('rredcot.joint.bestStart.both.prob@both~swap')).toEqual({
      family: 'rredcot',
      exit: 'joint',
      valueSuffix: 'bestStart',
      terms: 'both',
      space: 'prob',
      refs: 'both',
      rewrite: 'swap',
      oracle: false,
      n: null,
    });
    const plainName = parseMethodName('rredcot.any.softStart.value.log');
    expect([plainName.refs, plainName.rewrite, plainName.oracle]).toEqual(['dataset', 'canonical', false]);
    expect(parseMethodName('rredcot.forced.any.immediate.log@own').refs).toBe('own');
    expect(parseMethodName('rredcot.any.full.value.prob~reorderSwap').rewrite).toBe('reorderSwap');
  });

  it('marks the variants that read the task alignment as oracles, and says so in needsOf', () => {
    expect(parseMethodName('rredcot.joint.remaining.both.prob').oracle).toBe(true);
    expect(parseMethodName('rredcot.any.remaining.value.log@own~reorder').oracle).toBe(true);
    expect(needsOf('rredcot.joint.remaining.both.prob')).toBe('task alignment');
    expect(needsOf('rredcot.joint.full.both.prob')).toBe('—');
    expect(needsOf('signedPosition')).toBe('—');
  });

  it('the other families: MC with its n, gold, LOO, gradient, the baselines', () => {
    expect(parseMethodName('mc.n20')).toMatchObject({ family: 'mc', n: 20, oracle: false, refs: 'dataset', rewrite: 'canonical' });
    expect(parseMethodName('gold').family).toBe('gold');
    expect(parseMethodName('loo').family).toBe('loo');
    expect(parseMethodName('gradient').family).toBe('gradient');
    for (const b of ['length', 'position', 'signedLength', 'signedPosition']) expect(parseMethodName(b).family).toBe('baseline');
  });

  it('refuses names outside the grammar, naming the name and the slot', () => {
    expect(() => parseMethodName('mc.n0')).toThrow(/'mc\.n0'/);
    expect(() => parseMethodName('rredcot.joint.full.both')).toThrow(/expected rredcot\.<exit>/);
    expect(() => parseMethodName('rredcot.sideways.full.both.log')).toThrow(/exit 'sideways'/);
    expect(() => parseMethodName('rredcot.joint.full.both.log@mine')).toThrow(/reference source 'mine'/);
    expect(() => parseMethodName('rredcot.joint.full.both.log~shuffle')).toThrow(/rewrite 'shuffle'/);
    expect(() => parseMethodName('rredcot.joint.full.both.log~swap@own')).toThrow(/expected/);
  });

  it('canonicalName drops only the rewrite tail', () => {
    expect(canonicalName('rredcot.joint.bestStart.both.prob@both~swap')).toBe('rredcot.joint.bestStart.both.prob@both');
    expect(canonicalName('rredcot.joint.bestStart.both.prob')).toBe('rredcot.joint.bestStart.both.prob');
  });

  it("reads back every benchmark variant's reference source and rewrite; the oracles are exactly the task-alignment ones", () => {
    const variants = rredcotVariants(1, ['reorder', 'swap', 'reorderSwap'], 7);
    expect(variants.length).toBeGreaterThan(16);
    for (const v of variants) {
      const p = parseMethodName(v.name);
      expect([p.family, p.refs, p.rewrite]).toEqual(['rredcot', v.refs, v.rewrite]);
      expect(p.oracle).toBe(v.config.alignment === 'task');
    }
  });
});
