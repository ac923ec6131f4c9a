// Package dist/ into a .vsix with @vscode/vsce, reproducibly:
// fixed SOURCE_DATE_EPOCH (vsce then sorts entries and stamps that mtime) and fixed file modes.
// usage: node scripts/package.mjs [--out FILE.vsix]
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const pkg = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8'));
const outArg = process.argv.indexOf('--out');
const out = path.resolve(outArg > 0 ? process.argv[outArg + 1] : path.join(root, `${pkg.name}-${pkg.version}.vsix`));

if (!fs.existsSync(path.join(root, 'dist', 'extension.js'))) {
  console.error('dist/extension.js is missing: run `npm run bundle` first');
  process.exit(1);
}
// The repository README links to files of the repository and shows images/screenshot.png; vsce
// would rewrite those against the repository URL, i.e. against whatever revision is published
// there, so the .vsix gets a copy without relative links and local images instead.
const readme = fs
  .readFileSync(path.join(root, 'README.md'), 'utf8')
  .replace(/<!-- repo-only -->[\s\S]*?<!-- \/repo-only -->\n?/g, '')
  .replace(/!\[([^\]]*)\]\((?!https?:)[^)]*\)/g, '$1')
  .replace(/\[([^\]]*)\]\((?!https?:|#)[^)]*\)/g, '$1');
fs.writeFileSync(path.join(root, 'dist', 'README.md'), readme);

// Same permission bits whatever the umask of the checkout.
const walk = (p) => (fs.statSync(p).isDirectory() ? fs.readdirSync(p).flatMap((c) => walk(path.join(p, c))) : [p]);
for (const p of ['dist', 'syntaxes', 'images', 'package.json', 'README.md', 'CHANGELOG.md', 'LICENSE', 'language-configuration.json']) {
  const abs = path.join(root, p);
  if (fs.existsSync(abs)) for (const f of walk(abs)) fs.chmodSync(f, 0o644);
}

const vsce = path.join(root, 'node_modules', '@vscode', 'vsce', 'vsce');
const res = spawnSync(
  process.execPath,
  [vsce, 'package', '--no-dependencies', '--no-update-package-json', '--readme-path', 'dist/README.md', '--out', out],
  {
    cwd: root,
    stdio: 'inherit',
    env: { ...process.env, SOURCE_DATE_EPOCH: process.env.SOURCE_DATE_EPOCH || '1735689600' },
    timeout: 300_000,
  },
);
if (res.status !== 0) {
  console.error(`vsce package failed (${res.status ?? res.signal ?? res.error})`);
  process.exit(1);
}
const sha = createHash('sha256').update(fs.readFileSync(out)).digest('hex');
console.log(`${path.relative(process.cwd(), out) || out}  sha256=${sha}`);
