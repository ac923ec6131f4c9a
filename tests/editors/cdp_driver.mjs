// Drive headless Chromium over the DevTools protocol (Node >= 22: built-in WebSocket; no npm deps)
// against a running code-server, in step with the probe extension:
//   1. open URL, wait for the probe's phase-1 file (diagnostics are in)
//   2. read DOM facts (squiggles, hover widget, Problems panel, status bar), save a screenshot
//   3. write the go file (the probe then applies the quick fix), wait for the probe's result file
//   4. read DOM facts again, save a second screenshot, close the browser
// usage: node cdp_driver.mjs CONFIG.json
// CONFIG: {url, chromium, cdpPort, profile, chromeLog, phase1, go, result, shot, shotAfter, facts, maxSecs,
//          quick (read the page once phase 1 is in, not waiting for squiggles and a hover)}
import { spawn } from 'node:child_process';
import fs from 'node:fs';

const cfg = JSON.parse(fs.readFileSync(process.argv[2], 'utf8'));
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const maxMs = (cfg.maxSecs || 180) * 1000;
const t0 = Date.now();
const facts = { steps: [] };
const note = (s) => {
  const line = `[cdp ${((Date.now() - t0) / 1000).toFixed(1)}s] ${s}`;
  facts.steps.push(line);
  console.log(line);
};
const saveFacts = () => fs.writeFileSync(cfg.facts, JSON.stringify(facts, null, 2));

const chrome = spawn(
  cfg.chromium || 'chromium',
  [
    '--headless=new',
    '--no-sandbox',
    '--disable-gpu',
    '--disable-dev-shm-usage',
    '--no-first-run',
    '--no-default-browser-check',
    '--hide-scrollbars',
    `--remote-debugging-port=${cfg.cdpPort}`,
    '--remote-debugging-address=127.0.0.1',
    `--user-data-dir=${cfg.profile}`,
    '--window-size=1400,900',
    'about:blank',
  ],
  { stdio: ['ignore', 'ignore', fs.openSync(cfg.chromeLog || '/dev/null', 'w')] },
);
note(`chromium pid ${chrome.pid}`);
let finished = false;
const killChrome = () => {
  try {
    process.kill(chrome.pid, 'SIGKILL');
  } catch {}
};
process.on('exit', killChrome);
// hard stop: never hang
setTimeout(() => {
  if (finished) return;
  note('overall timeout');
  facts.error = 'cdp driver overall timeout';
  saveFacts();
  killChrome();
  process.exit(3);
}, 2 * maxMs + 30000).unref();

async function main() {
  let wsUrl;
  for (let i = 0; i < 300 && !wsUrl; i++) {
    try {
      const t = await (await fetch(`http://127.0.0.1:${cfg.cdpPort}/json/list`)).json();
      wsUrl = t.find((x) => x.type === 'page')?.webSocketDebuggerUrl;
    } catch {}
    if (!wsUrl) await sleep(100);
  }
  if (!wsUrl) throw new Error('chromium DevTools endpoint did not come up');
  const ws = new WebSocket(wsUrl);
  await new Promise((r, e) => {
    ws.addEventListener('open', r);
    ws.addEventListener('error', e);
  });
  let id = 0;
  const pending = new Map();
  ws.addEventListener('message', (e) => {
    const m = JSON.parse(e.data);
    if (m.id && pending.has(m.id)) {
      pending.get(m.id)(m);
      pending.delete(m.id);
    }
  });
  const send = (method, params = {}) =>
    Promise.race([
      new Promise((r) => {
        const i = ++id;
        pending.set(i, r);
        ws.send(JSON.stringify({ id: i, method, params }));
      }),
      sleep(30000).then(() => ({ error: { message: `CDP ${method} timed out` } })),
    ]);
  const evaluate = async (expr) => (await send('Runtime.evaluate', { expression: expr, returnByValue: true, awaitPromise: true })).result?.result?.value;
  const domFacts = () =>
    evaluate(`(() => ({
      title: document.title,
      workbench: !!document.querySelector('.monaco-workbench'),
      squiggles: document.querySelectorAll('.squiggly-error').length,
      squigglesAny: document.querySelectorAll('[class*="squiggly-"]').length,
      hover: [...document.querySelectorAll('.monaco-hover')].map(h => h.innerText.trim()).filter(Boolean).join(' | ').slice(0, 1000),
      problemsPanel: (document.querySelector('.markers-panel') || {}).innerText?.slice(0, 1000) || null,
      statusbar: (document.querySelector('.statusbar') || {}).innerText?.replace(/\\s+/g, ' ').slice(0, 400) || null,
      tabs: [...document.querySelectorAll('.tab .label-name')].map(t => t.innerText),
      notifications: [...document.querySelectorAll('.notification-list-item-message')].map(n => n.innerText).slice(0, 5),
      codeLenses: [...document.querySelectorAll('.codelens-decoration')].map(c => c.innerText.trim()).filter(Boolean).slice(0, 20),
      // the text of each drawn line of a questions file, inlay hints included (spaces as spaces)
      viewLines: [...document.querySelectorAll('.view-line')].map(l => l.textContent.replace(/[\u00a0]/g, ' ').replace(/[\u200b-\u200d]/g, ''))
        .filter(t => t.includes('"id": "')).slice(0, 60),
    }))()`);
  const screenshot = async (file) => {
    const shot = await send('Page.captureScreenshot', { format: 'png' });
    if (shot.result?.data) {
      fs.writeFileSync(file, Buffer.from(shot.result.data, 'base64'));
      note(`screenshot ${file}`);
    } else note(`screenshot failed ${JSON.stringify(shot.error)}`);
  };
  const waitFile = async (file, until) => {
    while (Date.now() < until) {
      if (fs.existsSync(file)) return true;
      await sleep(250);
    }
    return false;
  };

  await send('Page.enable');
  await send('Emulation.setDeviceMetricsOverride', { width: 1400, height: 900, deviceScaleFactor: 1, mobile: false });
  await send('Page.navigate', { url: cfg.url });
  note(`navigated to ${cfg.url}`);

  const deadline = t0 + maxMs;
  facts.phase1Seen = await waitFile(cfg.phase1, deadline);
  note(`phase1 file ${facts.phase1Seen}`);
  // let the editor paint decorations and the hover the probe opened
  let before = null;
  for (let i = 0; i < (cfg.quick ? 1 : 40); i++) {
    await sleep(250);
    before = await domFacts();
    if (before && before.squiggles > 0 && before.hover) break;
  }
  if (before && before.squiggles > 0 && !before.hover) {
    // fall back to a real mouse hover on the first error squiggle
    const pos = await evaluate(`(() => { const s = document.querySelector('.squiggly-error'); if (!s) return null;
      const r = s.getBoundingClientRect(); return {x: r.left + Math.min(8, r.width / 2), y: r.top + r.height / 2}; })()`);
    if (pos) {
      for (const dx of [0, 1, 2]) {
        await send('Input.dispatchMouseEvent', { type: 'mouseMoved', x: pos.x + dx, y: pos.y });
        await sleep(200);
      }
      await sleep(2000);
      before = await domFacts();
    }
  }
  facts.before = before;
  note(`DOM before ${JSON.stringify(before)}`);
  await screenshot(cfg.shot);
  fs.writeFileSync(cfg.go, 'go');

  facts.resultSeen = await waitFile(cfg.result, Date.now() + maxMs);
  note(`result file ${facts.resultSeen}`);
  await sleep(1500);
  facts.after = await domFacts();
  note(`DOM after ${JSON.stringify(facts.after)}`);
  if (cfg.shotAfter) await screenshot(cfg.shotAfter);
  await send('Browser.close').catch(() => {});
}

try {
  await main();
} catch (e) {
  facts.error = String(e && e.stack ? e.stack : e);
  note(`error ${facts.error}`);
}
finished = true;
saveFacts();
await sleep(300);
killChrome();
process.exit(facts.error ? 2 : 0);
