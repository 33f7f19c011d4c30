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
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('maps request paths to files under the root only', () => {
    expect(fileFor(dir, '/')).toBe(path.join(dir, 'index.html'));
    expect(fileFor(dir, '/data/runs.json?x=1')).toBe(path.join(dir, 'data', 'runs.json'));
    expect(fileFor(dir, '/../rred-notebooks-secret.txt')).toBeNull();
    expect(fileFor(dir, '/%2e%2e/rred-notebooks-secret.txt')).toBeNull();
    expect(fileFor(dir, '/data')).toBeNull();
    expect(fileFor(dir, '/%E0%A4%A')).toBeNull();
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
