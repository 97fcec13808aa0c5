/** File parts: image/PDF encoding, work-folder confinement (symlinks too), type sniffing, size limit. */
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadFileParts, sniffKind } from './files.js';

let root: string;
let workDir: string;
const PNG = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 1, 2, 3]);

beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'agent-files-'));
  workDir = join(root, 'work');
  mkdirSync(workDir);
  writeFileSync(join(workDir, 'photo.png'), PNG);
  writeFileSync(join(workDir, 'doc.pdf'), '%PDF-1.7');
  writeFileSync(join(root, 'secret.pdf'), '%PDF-secret');
  symlinkSync(join(root, 'secret.pdf'), join(workDir, 'link.pdf'));
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

const load = (files: Parameters<typeof loadFileParts>[0], maxFileSize = 1000) =>
  loadFileParts(files, { workDir, maxFileSize });

describe('loadFileParts', () => {
  it('sends images as data URLs and resolves relative paths inside the work folder', async () => {
    const parts = await load([{ path: 'photo.png', fileName: 'photo.png', contentType: 'image/png' }]);
    expect(parts).toEqual([
      { type: 'image_url', image_url: { url: `data:image/png;base64,${PNG.toString('base64')}` } },
    ]);
  });

  it('falls back to the extension when the content type is generic', async () => {
    const parts = await load({
      path: join(workDir, 'doc.pdf'),
      originalFileName: 'doc.pdf',
      contentType: 'application/octet-stream',
    });
    expect(parts[0]).toMatchObject({ type: 'file', file: { filename: 'doc.pdf' } });
  });

  it('refuses symlinks and paths that leave the work folder', async () => {
    await expect(load([{ path: join(workDir, 'link.pdf'), contentType: 'application/pdf' }])).rejects.toMatchObject({
      code: 403,
    });
    await expect(load([{ path: '../secret.pdf', contentType: 'application/pdf' }])).rejects.toMatchObject({
      code: 403,
    });
  });

  it('checks declared type against content, size, and shape', async () => {
    await expect(load([{ path: 'photo.png', contentType: 'application/pdf' }])).rejects.toMatchObject({ code: 415 });
    await expect(load([{ path: 'photo.png', contentType: 'image/png' }], 5)).rejects.toMatchObject({ code: 413 });
    await expect(load([{ fileName: 'x.pdf' }])).rejects.toMatchObject({ code: 400 });
    await expect(load([{ path: 'missing.pdf', contentType: 'application/pdf' }])).rejects.toMatchObject({ code: 400 });
    expect(await load(null)).toEqual([]);
  });

  it('sniffs file signatures', () => {
    expect(sniffKind(Buffer.from('%PDF-1.4'))).toBe('pdf');
    expect(sniffKind(Buffer.from([0xff, 0xd8, 0xff, 0xe0]))).toBe('jpeg');
    expect(sniffKind(Buffer.from('RIFF....WEBPVP8 '))).toBe('webp');
    expect(sniffKind(Buffer.from('hello'))).toBeUndefined();
  });
});
