// Open a file:// page in headless Chromium over the DevTools protocol (Node >= 22: built-in
// WebSocket, no npm deps), record every network request the page makes, read DOM facts with a
// page-side expression, and save a screenshot at each requested width. Content-Security-Policy
// violations are recorded from the page's start (a listener the page's CSP cannot block), and
// with `click` the page clicks that element last and tells what the click did.
// usage: node cdp_report.mjs CONFIG.json
// CONFIG: {url, chromium, cdpPort, profile, widths: [1280, 390], shots: {width: path}, facts, expression, maxSecs,
//          click?: CSS selector}
import { spawn } from 'node:child_process';
import fs from 'node:fs';

const cfg = JSON.parse(fs.readFileSync(process.argv[2], 'utf8'));
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const chrome = spawn(cfg.chromium, [
  '--headless=new', '--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage', '--no-first-run',
  '--no-default-browser-check', '--disable-background-networking', '--disable-component-update',
  '--disable-sync', '--hide-scrollbars', `--remote-debugging-port=${cfg.cdpPort}`,
  '--remote-debugging-address=127.0.0.1', `--user-data-dir=${cfg.profile}`, 'about:blank',
], { stdio: 'ignore' });
const kill = () => { try { process.kill(chrome.pid, 'SIGKILL'); } catch {} };
process.on('exit', kill);
setTimeout(() => { fs.writeFileSync(cfg.facts, JSON.stringify({ error: 'timeout' })); kill(); process.exit(3); },
  (cfg.maxSecs || 90) * 1000).unref();

async function target() {
  for (let i = 0; i < 200; i++) {
    try {
      const list = await (await fetch(`http://127.0.0.1:${cfg.cdpPort}/json/list`)).json();
      const page = list.find((t) => t.type === 'page');
      if (page) return page.webSocketDebuggerUrl;
    } catch {}
    await sleep(100);
  }
  throw new Error('no DevTools target');
}

const ws = new WebSocket(await target());
await new Promise((r) => ws.addEventListener('open', r, { once: true }));
let nextId = 1;
const pending = new Map();
const requests = [];
let loaded = null;
ws.addEventListener('message', (ev) => {
  const msg = JSON.parse(ev.data);
  if (msg.id && pending.has(msg.id)) { pending.get(msg.id)(msg); pending.delete(msg.id); }
  if (msg.method === 'Network.requestWillBeSent') requests.push(msg.params.request.url);
  if (msg.method === 'Page.loadEventFired' && loaded) loaded();
});
const send = (method, params = {}) => new Promise((resolve, reject) => {
  const id = nextId++;
  pending.set(id, (msg) => (msg.error ? reject(new Error(`${method}: ${msg.error.message}`)) : resolve(msg.result)));
  ws.send(JSON.stringify({ id, method, params }));
});

await send('Network.enable');
await send('Page.enable');
await send('Page.addScriptToEvaluateOnNewDocument', { source: `window.__violations = [];
  document.addEventListener('securitypolicyviolation', (e) => window.__violations.push(
    { directive: e.violatedDirective, blocked: e.blockedURI, sample: e.sample }));` });
await send('Emulation.setDeviceMetricsOverride', { width: cfg.widths[0], height: 900, deviceScaleFactor: 1, mobile: false });
const load = new Promise((r) => { loaded = r; });
await send('Page.navigate', { url: cfg.url });
await load;
await sleep(300);
const facts = { requests };
const evaluate = async (expression) => {
  const res = await send('Runtime.evaluate', { expression, returnByValue: true, awaitPromise: true });
  if (res.exceptionDetails) throw new Error(JSON.stringify(res.exceptionDetails));
  return res.result.value;
};
facts.dom = await evaluate(cfg.expression);
facts.widths = {};
for (const width of cfg.widths) {
  await send('Emulation.setDeviceMetricsOverride', { width, height: 900, deviceScaleFactor: 1, mobile: width < 600 });
  await sleep(200);
  facts.widths[width] = await evaluate('({scrollWidth: document.documentElement.scrollWidth, clientWidth: document.documentElement.clientWidth})');
  const { contentSize } = await send('Page.getLayoutMetrics');
  const shot = await send('Page.captureScreenshot', { format: 'png', captureBeyondViewport: true,
    clip: { x: 0, y: 0, width, height: Math.min(Math.ceil(contentSize.height), 6000), scale: 1 } });
  fs.writeFileSync(cfg.shots[String(width)], Buffer.from(shot.data, 'base64'));
}
if (cfg.preview) {  // the top of the page at the first width: the README's picture
  await send('Emulation.setDeviceMetricsOverride', { width: cfg.widths[0], height: 900, deviceScaleFactor: 1, mobile: false });
  await sleep(200);
  const top = await send('Page.captureScreenshot', { format: 'png', captureBeyondViewport: true,
    clip: { x: 0, y: 0, width: cfg.widths[0], height: cfg.preview.height, scale: 1 } });
  fs.writeFileSync(cfg.preview.path, Buffer.from(top.data, 'base64'));
}
// keyboard: real Tab key presses until a coverage cell has the focus, then read the detail panel
await send('Emulation.setFocusEmulationEnabled', { enabled: true });
const press = (key, code, keyCode) => send('Input.dispatchKeyEvent', { type: 'keyDown', key, code,
  windowsVirtualKeyCode: keyCode }).then(() => send('Input.dispatchKeyEvent', { type: 'keyUp', key, code,
  windowsVirtualKeyCode: keyCode }));
facts.keyboard = { tabs: 0, focused: false };
for (let i = 1; i <= 40 && !facts.keyboard.focused; i++) {
  await press('Tab', 'Tab', 9);
  facts.keyboard = await evaluate(`({tabs: ${i}, focused: !!document.activeElement.closest('.strip'),
    detail: document.getElementById('detail').textContent})`);
}
facts.violations = await evaluate('window.__violations');
facts.title = await evaluate('document.title');
if (cfg.click) {  // last: a click may leave the page
  const before = requests.length;
  facts.click = await evaluate(`(() => { const a = document.querySelector(${JSON.stringify(cfg.click)});
    const href = a.getAttribute('href'), resolved = a.href; a.click(); return { href, resolved }; })()`);
  await sleep(1000);
  facts.click.requests = requests.slice(before);
  facts.click.violations = await evaluate('window.__violations || null').catch(() => null);
  facts.click.title = await evaluate('document.title').catch(() => null);
  facts.click.pwned = await evaluate('window.__pwned || null').catch(() => null);
}
fs.writeFileSync(cfg.facts, JSON.stringify(facts, null, 2));
ws.close();
kill();
process.exit(0);
