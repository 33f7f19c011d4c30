import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { fileFor, serveDirectory } from './static-server';

describe('static server of the report site', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rred-notebooks-serve-'));
  fs.mkdirSync(path.join(dir, 'data'));
  fs.writeFileSync(path.join(dir, 'index.html'), '<p>hi</p>');
  fs.writeFileSync(path.join(dir, 'data', 'runs.json'), '{"runs":[]}');
  fs.writeFileSync(path.join(os.tmpdir(), 'rred-notebooks-secret.txt'), 'secret');
  afterAll(() => {
    fs.rmSync(dir, { recursive: true, force: true });
    fs.rmSync(path.join(os.tmpdir(), 'rred-notebooks-secret.txt'), { force: true });
  });

  it('maps request paths to files under the root only', () => {
    expect(fileFor(dir, '/')).toBe(path.join(dir, 'index.html'));
    expect(fileFor(dir, '/data/runs.json?x=1')).toBe(path.join(dir, 'data', 'runs.json'));
    expect(fileFor(dir, '/../rred-notebooks-secret.txt')).toBeNull();
    expect(fileFor(dir, '/%2e%2e/rred-notebooks-secret.txt')).toBeNull();
    expect(fileFor(dir, '/data')).toBeNull();
    expect(fileFor(dir, '/%E0%A4%A')).toBeNull();
  });

  it('never follows a symlink out of the site root (a file or a directory link), but follows one inside it', async () => {
    fs.symlinkSync('/etc/passwd', path.join(dir, 'passwd'));
    fs.symlinkSync(os.tmpdir(), path.join(dir, 'up'));
    fs.symlinkSync(path.join(dir, 'index.html'), path.join(dir, 'home.html'));
    expect(fileFor(dir, '/passwd')).toBeNull();
    expect(fileFor(dir, '/up/rred-notebooks-secret.txt')).toBeNull();
    expect(fileFor(dir, '/home.html')).toBe(path.join(fs.realpathSync(dir), 'index.html'));
    const server = await serveDirectory(dir, 0);
    try {
      expect((await fetch(`${server.url}passwd`)).status).toBe(404);
      expect((await fetch(`${server.url}up/rred-notebooks-secret.txt`)).status).toBe(404);
      expect(await (await fetch(`${server.url}home.html`)).text()).toBe('<p>hi</p>');
    } finally {
      await server.close();
      for (const f of ['passwd', 'up', 'home.html']) fs.rmSync(path.join(dir, f));
    }
  });

  it('serves on 127.0.0.1 with content types, 404 for anything else', async () => {
    const server = await serveDirectory(dir, 0);
    try {
      expect(server.url).toBe(`http://127.0.0.1:${server.port}/`);
      const page = await fetch(server.url);
      expect(page.status).toBe(200);
      expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
      expect(await page.text()).toBe('<p>hi</p>');
      const data = await fetch(`${server.url}data/runs.json`);
      expect(await data.json()).toEqual({ runs: [] });
      expect((await fetch(`${server.url}missing.html`)).status).toBe(404);
      expect((await fetch(server.url, { method: 'POST' })).status).toBe(405);
    } finally {
      await server.close();
    }
  });
});
