// Test-only probe for golden-lsp in VS Code (code-server).
// On startup it reads the JSON config named by $GOLDEN_LSP_PROBE_CONFIG, opens the questions file,
// waits for golden-lsp's diagnostics, asks for hover and code actions through the VS Code API,
// applies the "Lengthen to the occurrence at L:C" quick fix, waits for the diagnostic to clear,
// runs the extension's commands and writes everything it saw to config.out as JSON.
//
// Config keys: out, phase1 (written once diagnostics show), go (file the probe waits for before
// fixing, so the test can take a screenshot first), questions (path relative to the workspace
// folder), hover {line, character}, ambiguousLine, timeoutMs, chapter (a corpus file, relative to the
// workspace folder: at the end the probe asks for the questions file's inlay hints, opens the chapter
// beside it and asks for its code lenses, and leaves that view for the final screenshot), inlayLines
// (0-based lines: only reads the server's inlay hints of those lines and shows the first at the top,
// for the page to read what VS Code draws there), anchor ({line, start, end}: a selection in the
// chapter whose "Anchor here" code actions are read), completions ({line, cases}: each case a line
// with `|` at the cursor written to that line, completion triggered and the item accepted in the
// editor, as Ctrl+Space, Down and Enter do: "first" the selected one, "multiword" the first
// multi-word item after the first), fixServerPath (with expectNoServer: after the screenshot,
// goldenLsp.server.path is set to this and the probe waits for the server to start).
'use strict';
const fs = require('fs');
const vscode = require('vscode');

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
let logFile;
function log(msg) {
  try {
    if (logFile) fs.appendFileSync(logFile, `${new Date().toISOString()} ${msg}\n`);
  } catch {
    /* ignore */
  }
}

async function waitFor(what, fn, timeoutMs, stepMs = 200) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await sleep(stepMs);
  }
}

function withTimeout(p, ms, what) {
  return Promise.race([p, sleep(ms).then(() => Promise.reject(new Error(`timed out after ${ms} ms: ${what}`)))]);
}

function codeOf(d) {
  if (d.code === undefined || d.code === null) return null;
  return typeof d.code === 'object' ? String(d.code.value) : String(d.code);
}

function diagToJson(d) {
  return {
    line: d.range.start.line,
    character: d.range.start.character,
    endLine: d.range.end.line,
    endCharacter: d.range.end.character,
    severity: d.severity,
    source: d.source ?? null,
    code: codeOf(d),
    message: d.message,
  };
}

function hoverText(hovers) {
  const parts = [];
  for (const h of hovers || []) {
    for (const c of h.contents || []) {
      if (typeof c === 'string') parts.push(c);
      else if (c && typeof c.value === 'string') parts.push(c.value);
    }
  }
  return parts.join('\n---\n');
}

function goldenDiags(uri) {
  return vscode.languages.getDiagnostics(uri).filter((d) => d.source === 'golden-lsp');
}

async function probe(cfg, result) {
  const timeout = cfg.timeoutMs || 90000;
  const folder = await waitFor('a workspace folder', () => vscode.workspace.workspaceFolders?.[0], 30000);
  const uri = vscode.Uri.joinPath(folder.uri, cfg.questions || 'questions.jsonl');
  result.uri = uri.toString();
  log(`opening ${uri}`);

  const ext = vscode.extensions.getExtension('golden-lsp.golden-lsp');
  result.extensionInstalled = !!ext;
  if (!ext) throw new Error('extension golden-lsp.golden-lsp is not installed');

  const doc = await vscode.workspace.openTextDocument(uri);
  const editor = await vscode.window.showTextDocument(doc, { preview: false });
  result.languageId = doc.languageId;

  await waitFor('golden-lsp to activate', () => ext.isActive, 30000);
  result.extensionActive = true;
  const api = ext.exports;
  if (api && api.ready) await withTimeout(api.ready(), 60000, 'extension ready');
  result.serverCommand = api && api.serverCommand ? api.serverCommand() : null;
  log(`server command ${JSON.stringify(result.serverCommand)}`);

  if (cfg.inlayLines) {
    // inlay hints as VS Code draws them, with its default settings: the hints the server sends for
    // the given lines (read through the API), the first of those lines at the top of the editor for
    // the page to read (the CDP driver), nothing else open
    const lines = cfg.inlayLines;
    const range = new vscode.Range(Math.min(...lines), 0, Math.max(...lines) + 1, 0);
    const hints = await waitFor('the inlay hints of those lines', async () => {
      const h = await vscode.commands.executeCommand('vscode.executeInlayHintProvider', uri, range);
      return h && lines.every((l) => h.some((x) => x.position.line === l)) ? h : null;
    }, timeout);
    result.inlayHints = hints.map((h) => ({
      line: h.position.line,
      character: h.position.character,
      label: typeof h.label === 'string' ? h.label : h.label.map((p) => p.value).join(''),
      paddingLeft: !!h.paddingLeft,
    }));
    result.lineTexts = Object.fromEntries(lines.map((l) => [l, doc.lineAt(l).text]));
    result.maximumLength = vscode.workspace.getConfiguration('editor', doc).get('inlayHints.maximumLength');
    const top = new vscode.Position(Math.min(...lines), 0);
    editor.selection = new vscode.Selection(top, top);
    editor.revealRange(new vscode.Range(top, top), vscode.TextEditorRevealType.AtTop);
    await sleep(2000); // let the editor ask for and draw the hints of the visible lines
    if (cfg.phase1) fs.writeFileSync(cfg.phase1, JSON.stringify(result, null, 2));
    if (cfg.go) await waitFor('the go file', () => fs.existsSync(cfg.go), 60000).catch((e) => log(String(e)));
    return;
  }

  if (cfg.expectNoServer) {
    // the extension could not start a server: it must say so (notification + status bar)
    result.statusBarText = api && api.statusBarText ? api.statusBarText() : null;
    await sleep(1500);
    if (cfg.phase1) fs.writeFileSync(cfg.phase1, JSON.stringify(result, null, 2));
    if (cfg.go) await waitFor('the go file', () => fs.existsSync(cfg.go), 60000).catch((e) => log(String(e)));
    if (cfg.fixServerPath) {
      // the user sets the path: the server starts (and the notification goes)
      await vscode.workspace.getConfiguration('goldenLsp').update('server.path', cfg.fixServerPath, vscode.ConfigurationTarget.Workspace);
      result.serverCommandAfter = await waitFor('the server to start', () => api.serverCommand(), timeout);
      result.statusBarTextAfter = await waitFor('a status bar without the problem', () => {
        const text = api.statusBarText();
        return text.includes('no server') ? null : text;
      }, timeout);
    }
    return;
  }

  if (cfg.completions) {
    await waitFor('the first analysis', () => api.statusFor(uri), timeout);
    result.completions = [];
    for (const c of cfg.completions.cases) {
      result.completions.push(await complete(editor, doc, cfg.completions.line, c, timeout));
    }
    if (cfg.phase1) fs.writeFileSync(cfg.phase1, JSON.stringify(result, null, 2));
    if (cfg.go) await waitFor('the go file', () => fs.existsSync(cfg.go), 60000).catch((e) => log(String(e)));
    return;
  }

  // 1. diagnostics, including the ambiguous quote
  const isTarget = (d) => codeOf(d) === 'quote-ambiguous' && (cfg.ambiguousLine === undefined || d.range.start.line === cfg.ambiguousLine);
  const target = await waitFor('a quote-ambiguous diagnostic', () => goldenDiags(uri).find(isTarget), timeout);
  result.diagnostics = goldenDiags(uri).map(diagToJson);
  result.ambiguous = diagToJson(target);
  log(`diagnostics ${JSON.stringify(result.diagnostics)}`);

  // 2. hover on a resolved quote (position chosen by the test)
  if (cfg.hover) {
    const pos = new vscode.Position(cfg.hover.line, cfg.hover.character);
    const hovers = await withTimeout(vscode.commands.executeCommand('vscode.executeHoverProvider', uri, pos), 20000, 'hover');
    result.hover = hoverText(hovers);
    log(`hover ${JSON.stringify(result.hover)}`);
  }
  // hover on the ambiguous quote too (for the record)
  const inside = new vscode.Position(target.range.start.line, target.range.start.character + 1);
  const hovers2 = await withTimeout(vscode.commands.executeCommand('vscode.executeHoverProvider', uri, inside), 20000, 'hover');
  result.hoverAmbiguous = hoverText(hovers2);

  // 3. status notification -> extension state / status bar
  if (api && api.statusFor) {
    result.status = (await waitFor('a golden-lsp/status notification', () => api.statusFor(uri), 20000).catch(() => null)) || null;
    result.statusBarText = api.statusBarText ? api.statusBarText() : null;
  }

  // show the problem for the screenshot: cursor on the squiggle, hover open, Problems panel
  editor.selection = new vscode.Selection(inside, inside);
  editor.revealRange(target.range, vscode.TextEditorRevealType.InCenter);
  await vscode.commands.executeCommand('workbench.actions.view.problems').then(undefined, () => undefined);
  await vscode.window.showTextDocument(doc, { preview: false, preserveFocus: false });
  editor.selection = new vscode.Selection(inside, inside);
  await sleep(300);
  await vscode.commands.executeCommand('editor.action.showHover').then(undefined, () => undefined);
  if (cfg.phase1) fs.writeFileSync(cfg.phase1, JSON.stringify(result, null, 2));
  if (cfg.go) {
    log('waiting for the go file');
    await waitFor('the go file', () => fs.existsSync(cfg.go), 60000).catch((e) => log(String(e)));
  }

  // 4. code actions for the ambiguous quote
  const actions = await withTimeout(
    vscode.commands.executeCommand('vscode.executeCodeActionProvider', uri, target.range, vscode.CodeActionKind.QuickFix.value),
    20000,
    'code actions',
  );
  result.codeActions = (actions || []).map((a) => ({
    title: a.title,
    kind: a.kind ? a.kind.value : null,
    hasEdit: !!a.edit,
    command: a.command ? (typeof a.command === 'string' ? a.command : a.command.command) : null,
  }));
  log(`code actions ${JSON.stringify(result.codeActions)}`);
  const lengthen = (actions || []).find((a) => /^Lengthen to the occurrence at \d+:\d+/.test(a.title) && !a.disabled);
  if (!lengthen) throw new Error('no "Lengthen to the occurrence at L:C" code action');
  const before = doc.lineAt(target.range.start.line).text;
  if (lengthen.edit) {
    result.applied = await vscode.workspace.applyEdit(lengthen.edit);
  }
  if (lengthen.command) {
    const c = typeof lengthen.command === 'string' ? { command: lengthen.command, arguments: lengthen.arguments } : lengthen.command;
    await withTimeout(Promise.resolve(vscode.commands.executeCommand(c.command, ...(c.arguments || []))), 20000, 'code action command');
    result.applied = result.applied ?? true;
  }
  result.appliedTitle = lengthen.title;
  result.lineBefore = before;
  await waitFor('the edit to land', () => doc.lineAt(target.range.start.line).text !== before, 10000).catch(() => undefined);
  result.lineAfter = doc.lineAt(target.range.start.line).text;

  // 5. the diagnostic clears
  const cleared = await waitFor(
    'the quote-ambiguous diagnostic to clear',
    () => !goldenDiags(uri).some(isTarget),
    timeout,
  ).then(() => true, () => false);
  result.cleared = cleared;
  result.diagnosticsAfter = goldenDiags(uri).map(diagToJson);
  log(`cleared=${cleared} after=${JSON.stringify(result.diagnosticsAfter)}`);

  // 6. the extension's commands
  await withTimeout(doc.save(), 10000, 'save').catch((e) => log(`save: ${e}`));
  await sleep(500);
  result.check = await withTimeout(Promise.resolve(vscode.commands.executeCommand('goldenLsp.check')), 60000, 'check').catch((e) => ({ error: String(e) }));
  result.build = await withTimeout(Promise.resolve(vscode.commands.executeCommand('goldenLsp.build')), 120000, 'build').catch((e) => ({ error: String(e) }));
  if (api && api.statusFor) {
    // a successful build re-analyses the set: the status should come back clean
    if (result.build && result.build.ok) {
      await waitFor('a clean status after the build', () => {
        const st = api.statusFor(uri);
        return st && st.errors === 0;
      }, 15000).catch((e) => log(String(e)));
    }
    result.statusAfter = api.statusFor(uri) || null;
    result.statusBarTextAfter = api.statusBarText ? api.statusBarText() : null;
  }
  const commands = await vscode.commands.getCommands(true);
  result.commands = commands.filter((c) => c.startsWith('goldenLsp.') || c.startsWith('golden-lsp.'));

  // 7. authoring from both sides: inlay hints after the quotes, code lenses in a chapter
  if (cfg.chapter) {
    const all = new vscode.Range(0, 0, doc.lineCount, 0);
    const hints = await waitFor('inlay hints', async () => {
      const h = await vscode.commands.executeCommand('vscode.executeInlayHintProvider', uri, all);
      return h && h.length ? h : null;
    }, 30000).catch((e) => (log(String(e)), []));
    result.inlayHints = hints.map((h) => ({
      line: h.position.line,
      character: h.position.character,
      label: typeof h.label === 'string' ? h.label : h.label.map((p) => p.value).join(''),
    }));
    log(`inlay hints ${result.inlayHints.length}`);
    // wrap the long JSONL lines so each quote's hint is on screen for the screenshot
    await vscode.workspace.getConfiguration('editor').update('wordWrap', 'on', vscode.ConfigurationTarget.Global);
    await vscode.workspace.getConfiguration('editor').update('inlayHints.maximumLength', 0, vscode.ConfigurationTarget.Global);
    await vscode.commands.executeCommand('workbench.action.closePanel').then(undefined, () => undefined);
    const questionsEditor = await vscode.window.showTextDocument(doc, { viewColumn: vscode.ViewColumn.One, preview: false });
    const top = new vscode.Position(3, 0);
    questionsEditor.selection = new vscode.Selection(top, top);
    questionsEditor.revealRange(new vscode.Range(top, top), vscode.TextEditorRevealType.AtTop);
    const chapterUri = vscode.Uri.joinPath(folder.uri, cfg.chapter);
    const chapterDoc = await vscode.workspace.openTextDocument(chapterUri);
    await vscode.window.showTextDocument(chapterDoc, { viewColumn: vscode.ViewColumn.Two, preview: false });
    const lenses = await waitFor('code lenses', async () => {
      const l = await vscode.commands.executeCommand('vscode.executeCodeLensProvider', chapterUri);
      return l && l.some((x) => x.command) ? l : null;
    }, 30000).catch((e) => (log(String(e)), []));
    result.codeLenses = lenses.map((l) => ({ line: l.range.start.line, title: l.command ? l.command.title : null }));
    log(`code lenses ${JSON.stringify(result.codeLenses.slice(0, 3))}`);
    if (cfg.anchor) {
      // "Anchor here" on a selection of words that repeat elsewhere in the chapter: VS Code's
      // refactor menu for it (a disabled action would carry its reason)
      const { line, start, end } = cfg.anchor;
      const range = new vscode.Range(line, start, line, end);
      // asked until the anchoring action is offered: right after the chapter opens, the server
      // may still be taking in the chapter or re-analysing the set, and answers without it
      let found = null;
      await waitFor('the anchoring code action', async () => {
        found = await vscode.commands.executeCommand('vscode.executeCodeActionProvider', chapterUri, range, vscode.CodeActionKind.Refactor.value);
        return found && found.some((a) => a.title === 'New golden question anchored here') ? found : null;
      }, 30000, 500).catch((e) => log(String(e)));
      result.anchorActions = (found || []).map((a) => ({
        title: a.title,
        disabled: a.disabled ? a.disabled.reason : null,
        newTexts: a.edit ? a.edit.entries().flatMap(([, edits]) => edits.map((e) => e.newText)) : [],
      }));
      log(`anchor actions ${JSON.stringify(result.anchorActions)}`);
    }
    await sleep(2000); // let both editors render hints and lenses before the final screenshot
  }
}

/** Write case.line (its `|` the cursor) to `line`, trigger completion in the editor, move to the
 * item the case picks and accept it; the line afterwards. */
async function complete(editor, doc, line, c, timeout) {
  const at = c.line.indexOf('|');
  const text = c.line.slice(0, at) + c.line.slice(at + 1);
  await editor.edit((e) => e.replace(doc.lineAt(line).range, text));
  const cursor = new vscode.Position(line, at);
  editor.selection = new vscode.Selection(cursor, cursor);
  const round = { lineBefore: text };
  // the items as VS Code lists them for what is typed (all match it: ordered by sortText)
  const list = await vscode.commands.executeCommand('vscode.executeCompletionItemProvider', doc.uri, cursor);
  const items = [...(list ? list.items : [])].sort((a, b) => (a.sortText || '').localeCompare(b.sortText || ''));
  const label = (it) => (typeof it.label === 'string' ? it.label : it.label.label);
  round.menu = items.map(label);
  let index = 0;
  if (c.pick === 'multiword') index = items.findIndex((it, i) => i > 0 && label(it).includes(' '));
  round.chosen = index >= 0 && items[index] ? label(items[index]) : null;
  const deadline = Date.now() + timeout;
  while (doc.lineAt(line).text === text && Date.now() < deadline) {
    await vscode.commands.executeCommand('editor.action.triggerSuggest');
    await sleep(1500); // the suggest widget asks the server and opens
    for (let i = 0; i < index; i++) await vscode.commands.executeCommand('selectNextSuggestion');
    await vscode.commands.executeCommand('acceptSelectedSuggestion');
    await sleep(300);
  }
  round.lineAfter = doc.lineAt(line).text;
  log(`completion ${JSON.stringify(round)}`);
  return round;
}

async function activate() {
  const cfgPath = process.env.GOLDEN_LSP_PROBE_CONFIG;
  if (!cfgPath || !fs.existsSync(cfgPath)) return;
  const cfg = JSON.parse(fs.readFileSync(cfgPath, 'utf8'));
  logFile = cfg.out + '.log';
  const result = { ok: false, vscodeVersion: vscode.version };
  const timer = setTimeout(() => {
    result.error = 'probe overall timeout';
    fs.writeFileSync(cfg.out, JSON.stringify(result, null, 2));
  }, (cfg.timeoutMs || 90000) * 3);
  try {
    await probe(cfg, result);
    result.ok = true;
  } catch (e) {
    result.error = e && e.stack ? e.stack : String(e);
    log(`error ${result.error}`);
  } finally {
    clearTimeout(timer);
    const tmp = cfg.out + '.tmp';
    fs.writeFileSync(tmp, JSON.stringify(result, null, 2));
    fs.renameSync(tmp, cfg.out);
    log('wrote result');
  }
}

function deactivate() {}

module.exports = { activate, deactivate };
