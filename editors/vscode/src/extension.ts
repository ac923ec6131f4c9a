// VS Code client for the golden-lsp language server.
//
// - activates on questions files (questions.jsonl, *.questions.jsonl, goldenLsp.questionsPatterns)
// - finds the server: goldenLsp.server.path, else the interpreter selected in the Python extension
//   (asked through @vscode/python-extension) or python.defaultInterpreterPath, running
//   `python -m golden_lsp`, else a virtual environment of the workspace folder (.venv, venv), else
//   `golden-lsp` on PATH; says so in a notification when it cannot, closed once a server starts
// - commands: Build golden set, Check workspace, Restart server, Show server output
// - status bar item fed by the server's `golden-lsp/status` notification
// - corpus Markdown files go to the server too: code lenses and hover name the records labelling
//   a block, and code actions anchor a new question there; goldenLsp.inlayHints toggles the
//   resolution written after each quote
import * as cp from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { PVSC_EXTENSION_ID, PythonExtension } from '@vscode/python-extension';
import * as vscode from 'vscode';
import {
  DocumentSelector,
  ExecuteCommandRequest,
  LanguageClient,
  LanguageClientOptions,
  RevealOutputChannelOn,
  ServerOptions,
  State,
} from 'vscode-languageclient/node';

export const LANGUAGE_ID = 'golden-questions';
const DEFAULT_PATTERNS = ['**/questions.jsonl', '**/*.questions.jsonl'];
const STATUS_NOTIFICATION = 'golden-lsp/status';

export interface SetStatus {
  uri: string;
  records: number;
  errors: number;
  warnings: number;
}

interface ServerCommand {
  command: string;
  args: string[];
  /** how it was found: "setting" | "python" | "path" */
  source: string;
}

let client: LanguageClient | undefined;
let starting: Promise<void> | undefined;
let output: vscode.LogOutputChannel;
let traceOutput: vscode.LogOutputChannel;
let statusItem: vscode.StatusBarItem;
let currentServer: ServerCommand | undefined;
const statuses = new Map<string, SetStatus>();
let lastStatusUri: string | undefined;
let serverProblem: string | undefined;
/** closes the notification saying why no server runs (VS Code closes no message notification
 * from an extension: it is a progress notification, ended when a server starts) */
let closeProblemNotice: (() => void) | undefined;

function log(msg: string): void {
  output?.info(msg);
}

function questionsPatterns(): string[] {
  const extra = vscode.workspace.getConfiguration('goldenLsp').get<string[]>('questionsPatterns') ?? [];
  return [...DEFAULT_PATTERNS, ...extra.filter((p) => typeof p === 'string' && p.trim() !== '')];
}

export function documentSelector(): DocumentSelector {
  const selector: DocumentSelector = [{ language: LANGUAGE_ID }];
  for (const scheme of ['file', 'untitled', 'vscode-remote']) {
    for (const pattern of questionsPatterns()) selector.push({ scheme, pattern });
  }
  return selector;
}

/** What the client sends to the server: questions files and Markdown files (a chapter of a
 * corpus; the server ignores Markdown outside every golden set's corpus). */
export function clientSelector(): DocumentSelector {
  return [...documentSelector(), { scheme: 'file', language: 'markdown' }];
}

function inlayHints(): boolean {
  return vscode.workspace.getConfiguration('goldenLsp').get<boolean>('inlayHints') ?? true;
}

function isQuestionsDocument(doc: vscode.TextDocument): boolean {
  return vscode.languages.match(documentSelector() as vscode.DocumentSelector, doc) > 0;
}

// ------------------------------------------------------------------ finding the server

function isExecutable(p: string): boolean {
  try {
    const st = fs.statSync(p);
    if (!st.isFile()) return false;
    if (process.platform === 'win32') return true;
    fs.accessSync(p, fs.constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

function whichOnPath(name: string): string | undefined {
  const exts = process.platform === 'win32' ? ['.exe', '.cmd', '.bat', ''] : [''];
  for (const dir of (process.env.PATH ?? '').split(path.delimiter)) {
    if (!dir) continue;
    for (const ext of exts) {
      const candidate = path.join(dir, name + ext);
      if (isExecutable(candidate)) return candidate;
    }
  }
  return undefined;
}

function expandPath(p: string, folder?: vscode.WorkspaceFolder): string {
  let out = p.trim();
  if (out.startsWith('~/')) out = path.join(process.env.HOME ?? '', out.slice(2));
  if (folder) out = out.replace(/\$\{workspaceFolder\}/g, folder.uri.fsPath);
  if (!path.isAbsolute(out) && folder && out.includes(path.sep)) out = path.join(folder.uri.fsPath, out);
  return out;
}

function run(command: string, args: string[], timeoutMs: number): Promise<{ code: number | null; out: string }> {
  return new Promise((resolve) => {
    cp.execFile(command, args, { timeout: timeoutMs, windowsHide: true }, (err, stdout, stderr) => {
      const code = err ? (typeof (err as { code?: unknown }).code === 'number' ? ((err as { code: number }).code) : -1) : 0;
      resolve({ code, out: `${stdout}${stderr}` });
    });
  });
}

/** The Python extension's API (as Microsoft's python-tools-extension-template asks for it), or
 * undefined when the extension is not installed or fails to activate. */
async function pythonApi(): Promise<PythonExtension | undefined> {
  if (!vscode.extensions.getExtension(PVSC_EXTENSION_ID)) return undefined;
  try {
    return await PythonExtension.api();
  } catch (e) {
    log(`the Python extension did not activate: ${e}`);
    return undefined;
  }
}

/** The interpreter selected in the Python extension, else python.defaultInterpreterPath. */
async function selectedPython(resource?: vscode.Uri): Promise<string[] | undefined> {
  const api = await pythonApi();
  if (api) {
    try {
      const env = await api.environments.resolveEnvironment(api.environments.getActiveEnvironmentPath(resource));
      const exe = env?.executable.uri?.fsPath;
      if (exe) return [exe];
      log('the Python extension has no interpreter selected for this workspace');
    } catch (e) {
      log(`could not ask the Python extension for the interpreter: ${e}`);
    }
  } else {
    log(`the Python extension (${PVSC_EXTENSION_ID}) is not installed: using python.defaultInterpreterPath, then PATH`);
  }
  const configured = vscode.workspace.getConfiguration('python', resource).get<string>('defaultInterpreterPath');
  if (configured && configured !== 'python' && configured !== 'python3') {
    const folder = resource ? vscode.workspace.getWorkspaceFolder(resource) : vscode.workspace.workspaceFolders?.[0];
    return [expandPath(configured, folder)];
  }
  return undefined;
}

/** The Python interpreters of the workspace folder's virtual environments (.venv, venv). */
function workspaceVenvPythons(folder?: vscode.WorkspaceFolder): string[] {
  if (!folder || folder.uri.scheme !== 'file') return [];
  const bin = process.platform === 'win32' ? path.join('Scripts', 'python.exe') : path.join('bin', 'python');
  return ['.venv', 'venv'].map((d) => path.join(folder.uri.fsPath, d, bin)).filter(isExecutable);
}

/** `python -m golden_lsp` with the first of these interpreters that can import golden_lsp. */
async function pythonWithServer(pythons: string[], extraArgs: string[], source: string): Promise<ServerCommand | undefined> {
  for (const exe of pythons) {
    const probe = await run(exe, ['-c', 'import golden_lsp'], 20000);
    if (probe.code === 0) return { command: exe, args: ['-m', 'golden_lsp', ...extraArgs], source: `${source} ${exe}` };
    log(`${source} ${exe} cannot import golden_lsp: ${probe.out.trim()}`);
  }
  return undefined;
}

async function findServer(): Promise<ServerCommand | string> {
  const cfg = vscode.workspace.getConfiguration('goldenLsp');
  const folder = vscode.workspace.workspaceFolders?.[0];
  const extraArgs = (cfg.get<string[]>('server.args') ?? []).filter((a) => typeof a === 'string');
  const configured = (cfg.get<string>('server.path') ?? '').trim();
  if (configured) {
    const p = expandPath(configured, folder);
    const resolved = path.isAbsolute(p) ? p : whichOnPath(p);
    if (!resolved || !isExecutable(resolved)) {
      return `The setting goldenLsp.server.path is "${configured}", but no executable file is there.`;
    }
    return { command: resolved, args: extraArgs, source: 'setting goldenLsp.server.path' };
  }
  const python = await selectedPython(folder?.uri);
  const selected = python && (await pythonWithServer(python, extraArgs, 'Python interpreter'));
  if (selected) return selected;
  const venvs = workspaceVenvPythons(folder);
  const inVenv = await pythonWithServer(venvs, extraArgs, 'the workspace\'s virtual environment');
  if (inVenv) return inVenv;
  const onPath = whichOnPath('golden-lsp');
  if (onPath) return { command: onPath, args: extraArgs, source: 'PATH' };
  return (
    'Could not find the golden-lsp language server: goldenLsp.server.path is not set, ' +
    (python
      ? `the selected Python interpreter (${python[0]}) does not have golden_lsp installed, `
      : vscode.extensions.getExtension(PVSC_EXTENSION_ID)
        ? 'no Python interpreter is selected in the Python extension, '
        : `the Python extension (${PVSC_EXTENSION_ID}) is not installed and python.defaultInterpreterPath is not set, `) +
    (venvs.length ? `the workspace's ${venvs.join(', ')} cannot import golden_lsp, ` : 'the workspace has no .venv or venv, ') +
    `and there is no golden-lsp executable on PATH (${process.env.PATH ?? ''}). Install it with "pip install golden-lsp" ` +
    'or set goldenLsp.server.path to the golden-lsp executable.'
  );
}

// ------------------------------------------------------------------ status bar

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}

function updateStatusBar(): void {
  if (!statusItem) return;
  if (serverProblem) {
    statusItem.text = '$(error) golden-lsp: no server';
    statusItem.tooltip = serverProblem;
    statusItem.command = 'goldenLsp.showOutput';
    statusItem.backgroundColor = new vscode.ThemeColor('statusBarItem.errorBackground');
    statusItem.show();
    return;
  }
  statusItem.backgroundColor = undefined;
  if (!client) {
    statusItem.hide();
    return;
  }
  const active = vscode.window.activeTextEditor?.document;
  const activeKey = active?.uri.toString();
  const st = (activeKey && statuses.get(activeKey)) || (lastStatusUri ? statuses.get(lastStatusUri) : undefined);
  if (client.state === State.Starting) {
    statusItem.text = '$(sync~spin) golden-lsp';
    statusItem.tooltip = 'golden-lsp: starting the server';
  } else if (client.state === State.Stopped) {
    statusItem.text = '$(debug-disconnect) golden-lsp: stopped';
    statusItem.tooltip = 'golden-lsp: the server is not running. Run "golden-lsp: Restart server".';
  } else if (!st) {
    statusItem.text = '$(book) golden-lsp';
    statusItem.tooltip = `golden-lsp: running (${currentServer?.source ?? ''}); open a questions file`;
  } else {
    const icon = st.errors > 0 ? '$(error)' : st.warnings > 0 ? '$(warning)' : '$(pass)';
    const parts = [plural(st.records, 'record')];
    if (st.errors > 0) parts.push(plural(st.errors, 'error'));
    if (st.warnings > 0) parts.push(plural(st.warnings, 'warning'));
    if (st.errors === 0 && st.warnings === 0) parts.push('no problems');
    statusItem.text = `${icon} golden: ${parts.join(', ')}`;
    const file = vscode.Uri.parse(st.uri);
    statusItem.tooltip = `golden-lsp — ${vscode.workspace.asRelativePath(file)}: ${plural(st.records, 'record')}, ${plural(
      st.errors,
      'error',
    )}, ${plural(st.warnings, 'warning')}. Click to open the Problems panel.`;
  }
  statusItem.command = 'workbench.actions.view.problems';
  statusItem.show();
}

// ------------------------------------------------------------------ client lifecycle

function overrides(): Record<string, unknown> {
  const cfg = vscode.workspace.getConfiguration('goldenLsp').get<Record<string, unknown>>('config') ?? {};
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(cfg)) if (v !== null && v !== undefined && v !== '') out[k] = v;
  return out;
}

async function startClient(context: vscode.ExtensionContext): Promise<void> {
  if (client) return;
  const found = await findServer();
  if (typeof found === 'string') {
    showProblem(found);
    return;
  }
  serverProblem = undefined;
  closeProblemNotice?.();
  closeProblemNotice = undefined;
  currentServer = found;
  log(`starting server (${found.source}): ${[found.command, ...found.args].join(' ')}`);
  const folder = vscode.workspace.workspaceFolders?.[0];
  const serverOptions: ServerOptions = {
    command: found.command,
    args: found.args,
    options: { cwd: folder?.uri.fsPath, env: { ...process.env, PYTHONUNBUFFERED: '1' } },
  };
  const clientOptions: LanguageClientOptions = {
    documentSelector: clientSelector(),
    // statusNotification: the server sends golden-lsp/status only to a client that asks for it
    initializationOptions: { overrides: overrides(), inlayHints: inlayHints(), statusNotification: true },
    outputChannel: output,
    traceOutputChannel: traceOutput,
    revealOutputChannelOn: RevealOutputChannelOn.Never,
    synchronize: {
      fileEvents: [
        vscode.workspace.createFileSystemWatcher('**/*.md'),
        vscode.workspace.createFileSystemWatcher('**/golden-lsp.toml'),
      ],
    },
  };
  const c = new LanguageClient('goldenLsp', 'golden-lsp', serverOptions, clientOptions);
  client = c;
  context.subscriptions.push(
    c.onDidChangeState(() => updateStatusBar()),
    c.onNotification(STATUS_NOTIFICATION, (params: SetStatus) => {
      if (!params || typeof params.uri !== 'string') return;
      statuses.set(params.uri, params);
      lastStatusUri = params.uri;
      updateStatusBar();
    }),
  );
  updateStatusBar();
  try {
    await c.start();
    log('server started');
  } catch (e) {
    const msg = `golden-lsp: the server (${[found.command, ...found.args].join(' ')}) failed to start: ${e instanceof Error ? e.message : e}`;
    client = undefined;
    showProblem(msg);
  }
  updateStatusBar();
}

/** Say why no server runs: in the output, the status bar and a notification, which stays until
 * a server starts or the user closes it. */
function showProblem(problem: string): void {
  serverProblem = problem;
  log(problem);
  updateStatusBar();
  closeProblemNotice?.();
  void vscode.window.withProgress(
    { location: vscode.ProgressLocation.Notification, title: 'golden-lsp', cancellable: true },
    (progress, token) => {
      progress.report({
        message: `${problem} [Open the settings](command:workbench.action.openSettings?%5B%22goldenLsp.server%22%5D) or [show the output](command:goldenLsp.showOutput).`,
      });
      return new Promise<void>((resolve) => {
        closeProblemNotice = resolve;
        token.onCancellationRequested(() => resolve());
      });
    },
  );
}

function ensureStarted(context: vscode.ExtensionContext): Promise<void> {
  if (client) return Promise.resolve();
  if (!starting) {
    starting = startClient(context).finally(() => {
      starting = undefined;
    });
  }
  return starting;
}

async function stopClient(): Promise<void> {
  const c = client;
  client = undefined;
  statuses.clear();
  lastStatusUri = undefined;
  if (c) {
    try {
      await c.stop(5000);
    } catch (e) {
      log(`stopping the server: ${e}`);
    }
    try {
      await c.dispose(2000);
    } catch {
      /* already stopped */
    }
  }
}

async function restart(context: vscode.ExtensionContext): Promise<void> {
  if (starting) await starting;
  await stopClient();
  serverProblem = undefined;
  await ensureStarted(context);
}

// ------------------------------------------------------------------ commands

function targetUri(): string[] {
  const doc = vscode.window.activeTextEditor?.document;
  if (doc && isQuestionsDocument(doc)) return [doc.uri.toString()];
  return [];
}

async function serverCommand<T>(context: vscode.ExtensionContext, command: string, args: unknown[]): Promise<T | undefined> {
  await ensureStarted(context);
  if (!client) return undefined;
  return (await client.sendRequest(ExecuteCommandRequest.type, { command, arguments: args })) as T;
}

async function buildCommand(context: vscode.ExtensionContext): Promise<unknown> {
  const args = targetUri();
  return vscode.window.withProgress(
    { location: vscode.ProgressLocation.Notification, title: 'golden-lsp: building the golden set…' },
    async () => {
      try {
        const res = await serverCommand<{ ok: boolean; message: string }>(context, 'golden-lsp.build', args);
        if (!res) return undefined;
        if (res.ok) void vscode.window.showInformationMessage(`golden-lsp: ${res.message}`);
        else void vscode.window.showErrorMessage(`golden-lsp: build failed: ${res.message}`, 'Show Problems').then((c) => {
          if (c) void vscode.commands.executeCommand('workbench.actions.view.problems');
        });
        return res;
      } catch (e) {
        void vscode.window.showErrorMessage(`golden-lsp: build failed: ${e instanceof Error ? e.message : e}`);
        return undefined;
      }
    },
  );
}

async function checkCommand(context: vscode.ExtensionContext): Promise<unknown> {
  try {
    const res = await serverCommand<{ records: number; errors: number; warnings: number }>(context, 'golden-lsp.check', targetUri());
    if (!res) return undefined;
    const msg = `golden-lsp: ${plural(res.records, 'record')}, ${plural(res.errors, 'error')}, ${plural(res.warnings, 'warning')}`;
    if (res.errors > 0) {
      void vscode.window.showErrorMessage(msg, 'Show Problems').then((c) => {
        if (c) void vscode.commands.executeCommand('workbench.actions.view.problems');
      });
    } else if (res.warnings > 0) {
      void vscode.window.showWarningMessage(msg, 'Show Problems').then((c) => {
        if (c) void vscode.commands.executeCommand('workbench.actions.view.problems');
      });
    } else {
      void vscode.window.showInformationMessage(msg);
    }
    return res;
  } catch (e) {
    void vscode.window.showErrorMessage(`golden-lsp: check failed: ${e instanceof Error ? e.message : e}`);
    return undefined;
  }
}

// ------------------------------------------------------------------ activation

export interface GoldenLspApi {
  /** resolves once the client started (or failed to) */
  ready(): Promise<void>;
  /** last `golden-lsp/status` received for a questions file */
  statusFor(uri: vscode.Uri | string): SetStatus | undefined;
  /** the server command line in use, if any */
  serverCommand(): string[] | undefined;
  /** the status bar text as shown */
  statusBarText(): string;
}

async function workspaceHasQuestions(): Promise<boolean> {
  for (const pattern of questionsPatterns()) {
    try {
      const found = await vscode.workspace.findFiles(pattern, '**/node_modules/**', 1);
      if (found.length > 0) return true;
    } catch {
      /* ignore bad patterns */
    }
  }
  return false;
}

export async function activate(context: vscode.ExtensionContext): Promise<GoldenLspApi> {
  output = vscode.window.createOutputChannel('golden-lsp', { log: true });
  traceOutput = vscode.window.createOutputChannel('golden-lsp trace', { log: true });
  statusItem = vscode.window.createStatusBarItem('goldenLsp.status', vscode.StatusBarAlignment.Left, 10);
  statusItem.name = 'golden-lsp';
  context.subscriptions.push(output, traceOutput, statusItem);

  context.subscriptions.push(
    vscode.commands.registerCommand('goldenLsp.build', () => buildCommand(context)),
    vscode.commands.registerCommand('goldenLsp.check', () => checkCommand(context)),
    vscode.commands.registerCommand('goldenLsp.restart', () => restart(context)),
    vscode.commands.registerCommand('goldenLsp.showOutput', () => output.show()),
    vscode.window.onDidChangeActiveTextEditor(() => updateStatusBar()),
    vscode.workspace.onDidOpenTextDocument((doc) => {
      if (!client && isQuestionsDocument(doc)) void ensureStarted(context);
    }),
    vscode.workspace.onDidChangeConfiguration((e) => {
      if (e.affectsConfiguration('goldenLsp.inlayHints') && client) {
        void client.sendNotification('workspace/didChangeConfiguration', { settings: { goldenLsp: { inlayHints: inlayHints() } } });
      }
      if (
        e.affectsConfiguration('goldenLsp.server') ||
        e.affectsConfiguration('goldenLsp.config') ||
        e.affectsConfiguration('goldenLsp.questionsPatterns') ||
        (e.affectsConfiguration('python.defaultInterpreterPath') && currentServer?.source.startsWith('Python'))
      ) {
        log('configuration changed: restarting the server');
        void restart(context);
      }
    }),
  );
  if (vscode.extensions.getExtension(PVSC_EXTENSION_ID)?.isActive) {
    void pythonApi().then((api) => {
      if (!api) return;
      context.subscriptions.push(
        api.environments.onDidChangeActiveEnvironmentPath(() => {
          if (!vscode.workspace.getConfiguration('goldenLsp').get<string>('server.path')) void restart(context);
        }),
      );
    });
  }

  // Start the server only when there is something for it to do: a questions file is open
  // or the workspace contains one. Other .jsonl files are left alone.
  const initial = vscode.workspace.textDocuments.some(isQuestionsDocument) || (await workspaceHasQuestions());
  const ready = initial ? ensureStarted(context) : Promise.resolve();

  return {
    ready: async () => {
      await ready;
      if (starting) await starting;
    },
    statusFor: (uri) => statuses.get(typeof uri === 'string' ? uri : uri.toString()),
    serverCommand: () => (currentServer ? [currentServer.command, ...currentServer.args] : undefined),
    statusBarText: () => statusItem.text,
  };
}

export async function deactivate(): Promise<void> {
  await stopClient();
}
