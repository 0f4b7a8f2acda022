// The review card in a real browser: Debian's headless Chromium (driven by playwright-core,
// no browser download) loads the card's HTML from the real binary's resources/read into a
// sandboxed srcdoc iframe, and a small host page plays the host side of MCP Apps over
// window.postMessage: it answers ui/initialize, feeds a real show_review result from the
// binary (a legacy session that declared the UI extension, and one of a host that declared
// nothing, as VS Code renders the card), forwards the card's tools/call to the binary, and
// the test reads the verdicts back with recall_decisions.
//
//   node --test tests/browser/card.test.mjs   (tests/browser/run.sh builds and installs first)
//
// Environment: REVIEW_MCP_BIN (default target/debug/review-mcp), CHROMIUM (default
// /usr/bin/chromium), CARD_SCREENSHOTS=DIR (where card-light.png and card-dark.png go;
// default docs/).
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import readline from "node:readline";
import { fileURLToPath } from "node:url";
import { chromium } from "playwright-core";
import { HtmlValidate } from "html-validate";

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, "../..");
const BIN = process.env.REVIEW_MCP_BIN || path.join(root, "target/debug/review-mcp");
const CHROMIUM = process.env.CHROMIUM || "/usr/bin/chromium";
const SHOTS = process.env.CARD_SCREENSHOTS || path.join(root, "docs");
const CARD_URI = "ui://review-mcp/review-card";
const APP_MIME = "text/html;profile=mcp-app";
const UI_CAPS = { extensions: { "io.modelcontextprotocol/ui": { mimeTypes: [APP_MIME] } } };

const OLD = "sha256:" + "1".repeat(64);
const REV = "sha256:" + "2".repeat(64);
const FILE = "/work/parts/bracket.step";
const SUBJECT = "bore and wall";
const AUTHOR = "Ada Lovelace";
const HOSTILE = '<img src=x onerror="parent.postMessage(\'pwned\',\'*\')">bracket & <b>bore</b>';

/** The binary over stdio: one JSON line each way, answers matched by id. */
class Server {
  constructor(db, author = AUTHOR) {
    this.child = spawn(BIN, ["--db", db, "--author", author], { stdio: ["pipe", "pipe", "pipe"] });
    this.db = db;
    this.nextId = 1;
    this.waiting = new Map();
    this.child.stderr.resume();
    readline.createInterface({ input: this.child.stdout }).on("line", (line) => {
      const m = JSON.parse(line);
      const w = m.id !== undefined && m.method === undefined ? this.waiting.get(m.id) : undefined;
      if (w) {
        this.waiting.delete(m.id);
        w(m);
      }
    });
  }
  send(method, params) {
    const id = this.nextId++;
    return new Promise((resolve) => {
      this.waiting.set(id, resolve);
      this.child.stdin.write(JSON.stringify({ jsonrpc: "2.0", id, method, params }) + "\n");
    });
  }
  notify(method, params) {
    this.child.stdin.write(JSON.stringify({ jsonrpc: "2.0", method, params }) + "\n");
  }
  async call(name, args) {
    const m = await this.send("tools/call", { name, arguments: args });
    assert.equal(m.error, undefined, JSON.stringify(m.error));
    assert.notEqual(m.result.isError, true, JSON.stringify(m.result));
    return m.result;
  }
  close() {
    this.child.stdin.end();
  }
  /** Until the process has ended (its database closed). */
  closed() {
    if (this.child.exitCode !== null) return Promise.resolve();
    return new Promise((resolve) => { this.child.on("exit", resolve); this.child.stdin.end(); });
  }
}

/** A session of a host that declared the UI extension, on database `db`. */
async function session(db, author = AUTHOR) {
  const s = new Server(db, author);
  const init = await s.send("initialize", {
    protocolVersion: "2025-11-25", capabilities: UI_CAPS, clientInfo: { name: "browser-test-host", version: "1" },
  });
  assert.equal(init.error, undefined, JSON.stringify(init.error));
  s.notify("notifications/initialized", {});
  return s;
}

/** `review-mcp sync FOLDER` of database `db`, which must succeed. */
function sync(db, folder) {
  const out = spawnSync(BIN, ["--db", db, "sync", folder], { encoding: "utf8", env: { ...process.env, MCP_LOG_LEVEL: "warn" } });
  assert.equal(out.status, 0, out.stdout + out.stderr);
}

const artifact = (revision) => ({ revision, format: "step", uri: FILE, units: "mm" });

// The host page: the card in a sandboxed srcdoc iframe (scripts only: an opaque origin), and
// the host's half of the protocol. Tool calls go to the test through window.toServer.
const HOST_PAGE = `<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>host</title>
<style>body{margin:0;background:#888}iframe{border:0;width:100%;display:block}</style></head>
<body><iframe id="card" sandbox="allow-scripts" title="Review card"></iframe>
<script>
window.fromCard = [];
window.hostState = { context: null, toolInput: null, toolResult: null };
const frame = document.getElementById("card");
function send(m) { frame.contentWindow.postMessage(Object.assign({ jsonrpc: "2.0" }, m), "*"); }
window.sendToCard = send;
window.addEventListener("message", async (event) => {
  if (event.source !== frame.contentWindow) return;
  const m = event.data;
  window.fromCard.push(m);
  if (m.method === "ui/initialize") {
    // neverInit: a host that never answers the handshake; dataWithoutInit: and sends the
    // tool's input and result all the same.
    if (window.hostState.neverInit) {
      if (window.hostState.dataWithoutInit) {
        send({ method: "ui/notifications/tool-input", params: { arguments: window.hostState.toolInput } });
        send({ method: "ui/notifications/tool-result", params: window.hostState.toolResult });
      }
      return;
    }
    // initDelay: a host that takes its time to answer (and, until it has, takes no notice of
    // what the card sends: hostState.ignoreBeforeInit).
    const answer = () => {
      window.hostState.initialized = true;
      send({ id: m.id, result: {
        protocolVersion: "2026-01-26",
        hostInfo: { name: "review-mcp browser test host", version: "1" },
        hostCapabilities: { serverTools: {}, logging: {} },
        hostContext: window.hostState.context,
      } });
    };
    if (window.hostState.initDelay) setTimeout(answer, window.hostState.initDelay); else answer();
  } else if (window.hostState.ignoreBeforeInit && !window.hostState.initialized) {
    window.ignoredBeforeInit = (window.ignoredBeforeInit || 0) + 1;
  } else if (m.method === "ui/notifications/initialized") {
    // partials: tool-input-partial arguments streamed first; cancelled: the reason the call
    // was cancelled, sent instead of its result.
    for (const p of window.hostState.partials || []) send({ method: "ui/notifications/tool-input-partial", params: { arguments: p } });
    send({ method: "ui/notifications/tool-input", params: { arguments: window.hostState.toolInput } });
    if (window.hostState.cancelled !== undefined) {
      send({ method: "ui/notifications/tool-cancelled", params: { reason: window.hostState.cancelled } });
    } else {
      send({ method: "ui/notifications/tool-result", params: window.hostState.toolResult });
    }
  } else if (m.method === "ui/notifications/size-changed") {
    if (typeof m.params.height === "number") frame.style.height = m.params.height + "px";
  } else if (m.method === "tools/call") {
    // hangTools: the calls a host never answers.
    if ((window.hostState.hangTools || []).includes(m.params.name)) return;
    // toolAnswers: what the host answers a call of that tool itself, not passing it on.
    const own = (window.hostState.toolAnswers || {})[m.params.name];
    if (own) { send(Object.assign({ id: m.id }, own)); return; }
    const answer = await window.toServer(m.params);
    send(Object.assign({ id: m.id }, answer));
  }
});
window.loadCard = (html) => { frame.srcdoc = html; };
</script></body></html>`;

let dir;
let server;
let browser;
let cardHtml;
let showResult;
let showFull;
let decisionId;

before(async () => {
  // A missing binary would leave every answer pending and the runner would only say "Promise
  // resolution is still pending": name it instead.
  if (!existsSync(BIN)) {
    throw new Error(`no review-mcp binary at ${BIN}: build it, or set REVIEW_MCP_BIN`);
  }
  dir = mkdtempSync(path.join(tmpdir(), "review-card-"));
  server = new Server(path.join(dir, "review.db"));
  const init = await server.send("initialize", {
    protocolVersion: "2025-11-25",
    capabilities: UI_CAPS,
    clientInfo: { name: "browser-test-host", version: "1" },
  });
  assert.equal(init.result.protocolVersion, "2025-11-25");
  server.notify("notifications/initialized", {});
  // The same subject at an older revision of the file: stale against the current one.
  await server.call("remember_decision", {
    artifact: artifact(OLD),
    subject: "bore tolerance",
    disposition: "hold",
    basis: [{ requirement: "Bore 12H7", source: "drawing", state: "violated", evidence: "measured 12.030 mm" }],
  });
  const current = await server.call("remember_decision", {
    artifact: artifact(REV),
    subject: SUBJECT,
    disposition: "hold for the engineer",
    summary: HOSTILE,
    basis: [
      { requirement: "Bore 12H7", source: "drawing", sourceDetail: "note 4", state: "satisfied",
        evidence: "12.008 mm by the geometry server", faces: ["face:12"] },
      { requirement: "Wall at least 2.0 mm", source: "shop-spec", state: "violated",
        evidence: "1.6 mm at the slot", faces: ["face:3", "face:4"] },
      { requirement: "Thread M6x1", source: "standard", state: "unresolved",
        question: "Is the thread rolled or cut?" },
      { requirement: "Surface finish Ra 1.6", source: "model-pmi", state: "conflicting",
        question: "The drawing says Ra 3.2: which governs?", faces: ["face:7"] },
    ],
  });
  decisionId = current.structuredContent.decision.id;
  await server.call("remember", {
    artifact: artifact(REV), name: "mating face", note: "Bolts to the frame", entity_ids: ["face:12"],
  });
  const read = await server.send("resources/read", { uri: CARD_URI });
  assert.equal(read.error, undefined, JSON.stringify(read.error));
  assert.equal(read.result.contents[0].mimeType, APP_MIME);
  cardHtml = read.result.contents[0].text;
  showResult = await server.call("show_review", { artifact: artifact(REV) });
  showFull = await server.call("show_review", { artifact: artifact(REV), detail: "full" });
  browser = await chromium.launch({ executablePath: CHROMIUM, args: ["--no-sandbox"] });
});

after(async () => {
  await browser?.close();
  server?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** A host page with the card loaded, the host context `context`; every request recorded. */
async function openCard({ context, colorScheme = "light", toolInput = { artifact: artifact(REV) }, result = showResult, via = server, html = cardHtml, host = {}, heading = /Review of bracket\.step/ }) {
  const page = await browser.newPage({ viewport: { width: 1100, height: 1800 }, colorScheme });
  const requests = [];
  page.on("request", (r) => requests.push(r.url()));
  await page.exposeFunction("toServer", async (params) => {
    const m = await via.send("tools/call", params);
    return m.error ? { error: m.error } : { result: m.result };
  });
  await page.setContent(HOST_PAGE);
  await page.evaluate(([ctx, input, result, host]) => {
    window.hostState = Object.assign({ context: ctx, toolInput: input, toolResult: result }, host);
  }, [context, toolInput, result, host]);
  await page.evaluate((html) => window.loadCard(html), html);
  const card = page.frameLocator("#card");
  if (heading) await card.getByRole("heading", { name: heading }).waitFor();
  return { page, card, requests };
}

const bodyBackground = (page) =>
  page.frames().find((f) => f !== page.mainFrame())
    .evaluate(() => getComputedStyle(document.body).backgroundColor);

/** Until the card's last size-changed has been applied to the frame. */
async function settle(page) {
  let last = -1;
  for (let i = 0; i < 20; i++) {
    await page.waitForTimeout(100);
    const n = await page.evaluate(() => window.fromCard.length);
    if (n === last) return;
    last = n;
  }
}

const isDark = (rgb) => {
  const [r, g, b] = rgb.match(/\d+/g).map(Number);
  return (r + g + b) / 3 < 100;
};

test("card_html_is_valid_html5_and_under_64_kb", async () => {
  const bytes = Buffer.byteLength(cardHtml, "utf8");
  console.log(`card: ${bytes} bytes`);
  assert.ok(bytes < 64 * 1024, `${bytes} bytes`);
  const validator = new HtmlValidate({ extends: ["html-validate:recommended"] });
  const report = await validator.validateString(cardHtml);
  const messages = report.results.flatMap((r) => r.messages.map((m) => `${m.line}:${m.column} ${m.ruleId} ${m.message}`));
  assert.deepEqual(messages, []);
  assert.doesNotMatch(cardHtml, /https?:\/\//, "no external URL anywhere in the card");
});

test("card_handshake_render_verdicts_round_trip_through_the_binary", async () => {
  const { page, card, requests } = await openCard({
    context: { theme: "light", displayMode: "inline", styles: { variables: { "--font-sans": "sans-serif" } } },
  });
  // The handshake as the ext-apps SDK's types have it, then initialized after the answer.
  const log = await page.evaluate(() => window.fromCard);
  const init = log.find((m) => m.method === "ui/initialize");
  assert.equal(init.params.protocolVersion, "2026-01-26");
  assert.equal(typeof init.params.appInfo.name, "string");
  assert.equal(typeof init.params.appInfo.version, "string");
  assert.equal(typeof init.params.appCapabilities, "object");
  const order = log.map((m) => m.method);
  assert.ok(order.indexOf("ui/notifications/initialized") > order.indexOf("ui/initialize"));
  assert.ok(log.some((m) => m.method === "ui/notifications/size-changed" && m.params.height > 200));

  // The data is text, never markup: the hostile summary shows as written and adds no element.
  const frame = page.frames().find((f) => f !== page.mainFrame());
  assert.equal(await frame.evaluate(() => document.querySelectorAll("img, b").length), 0);
  await card.getByText(HOSTILE, { exact: true }).first().waitFor();
  assert.ok(!log.includes("pwned"));

  // State colour-coded and spelled out; stale marked; verdict provenance absent so far.
  for (const s of ["satisfied", "violated", "unresolved", "conflicting"]) {
    await card.getByText(new RegExp(`^. ${s}$`)).first().waitFor();
  }
  await card.getByText("\u26a0 stale").first().waitFor();
  await card.getByText("Is the thread rolled or cut?").first().waitFor();

  // Accept item 3 with the mouse; Reject item 2 from the keyboard, with a reason.
  await card.getByRole("button", { name: "Accept item 3: Thread M6x1" }).click();
  await card.getByRole("status").getByText(/Recorded: accepted item 3/).waitFor();
  await card.getByRole("textbox", { name: "Reason for item 2: Wall at least 2.0 mm" }).fill("Slot wall is fine for this load");
  await card.getByRole("button", { name: "Reject item 2: Wall at least 2.0 mm" }).focus();
  await page.keyboard.press("Enter");
  await card.getByRole("status").getByText(/Recorded: rejected item 2/).waitFor();
  // Re-rendered from record_verdict's result, with who gave each verdict, through which
  // channel.
  assert.equal(await card.getByText(/by the engineer \(review card, Ada Lovelace\)/).count(), 2);
  // Each verdict says name, time and meaning (issue 28), and the decision's trail shows
  // the clicks first, one line per change, as text.
  await card.getByText(/by the engineer \(review card, Ada Lovelace\), 20\d\d-.*Z, meaning review$/).first().waitFor();
  await card.getByText("History, newest first:").first().waitFor();
  await card.getByText(/^verdict given: item 2 verdict none → rejected: "Slot wall is fine for this load", 20\d\d-\d\d-\d\d \d\d:\d\d, Ada Lovelace, review \(app\)$/).first().waitFor();
  await card.getByText(/^verdict given: item 3 verdict none → accepted, .*, Ada Lovelace, review \(app\)$/).first().waitFor();
  await card.getByText(/^created: disposition none → /).first().waitFor();
  assert.equal(await frame.evaluate(() => document.querySelectorAll("img, b").length), 0);
  // Each click carried the card's proof (from show_review's _meta), and the card logged it
  // as MCP Apps has a log line: notifications/message (there is no "ui/log").
  const sentNow = await page.evaluate(() => window.fromCard);
  const clicks = sentNow.filter((m) => m.method === "tools/call" && m.params.name === "record_verdict");
  assert.equal(clicks.length, 2);
  for (const c of clicks) assert.match(c.params.arguments.card_proof, /^cp1\.\d+\.[0-9a-f]{32}$/);
  const logged = sentNow.filter((m) => m.method === "notifications/message");
  assert.ok(logged.some((m) => m.params.level === "info" && /recorded accepted on item 3/.test(m.params.data)),
    JSON.stringify(logged));
  assert.equal(sentNow.filter((m) => m.method === "ui/log").length, 0);

  // Read back from the binary: both verdicts are the engineer's, via the app.
  const back = await server.call("recall_decisions", { artifact: artifact(REV), subject: SUBJECT });
  const basis = back.structuredContent.decisions[0].basis;
  assert.equal(basis[2].verdict.judgement, "accepted");
  assert.equal(basis[2].verdict.via, "app");
  assert.equal(basis[1].verdict.judgement, "rejected");
  assert.equal(basis[1].verdict.via, "app");
  assert.equal(basis[1].verdict.reason, "Slot wall is fine for this load");
  assert.equal(basis[1].verdict.author, AUTHOR);
  assert.equal(basis[2].verdict.author, AUTHOR);
  assert.equal(basis[0].verdict, undefined);
  assert.equal(back.structuredContent.decisions[0].id, decisionId);

  // The light theme, then the host switches to dark.
  assert.ok(!isDark(await bodyBackground(page)));
  await card.locator("body").evaluate(() => document.fonts.ready);
  await settle(page);
  await page.locator("#card").screenshot({ path: path.join(SHOTS, "card-light.png") });
  await page.evaluate(() => window.sendToCard({ method: "ui/notifications/host-context-changed", params: { theme: "dark" } }));
  await frame.waitForFunction(() => document.documentElement.getAttribute("data-theme") === "dark");
  assert.ok(isDark(await bodyBackground(page)));
  await settle(page);
  await page.locator("#card").screenshot({ path: path.join(SHOTS, "card-dark.png") });

  const outside = requests.filter((u) => !/^(about:|data:)/.test(u));
  assert.deepEqual(outside, [], "the card made no network request");
  await page.close();
});

test("card_without_a_host_theme_follows_prefers_color_scheme", async () => {
  for (const [scheme, dark] of [["dark", true], ["light", false]]) {
    const { page, requests } = await openCard({ context: {}, colorScheme: scheme });
    assert.equal(isDark(await bodyBackground(page)), dark, scheme);
    assert.deepEqual(requests.filter((u) => !/^(about:|data:)/.test(u)), []);
    await page.close();
  }
});

test("card_shows_only_the_subject_of_show_reviews_input_even_after_an_echoed_call", async () => {
  const { page, card } = await openCard({
    context: { theme: "light" }, toolInput: { artifact: artifact(REV), subject: SUBJECT },
  });
  await card.getByText("Nothing recorded for these files at other revisions.").waitFor();
  assert.equal(await card.getByText("bore tolerance").count(), 0);
  // A host may echo the card's own calls as tool-input: record_verdict's arguments name no
  // artifact and must not widen what the card shows.
  await page.evaluate(() => window.sendToCard({ method: "ui/notifications/tool-input",
    params: { arguments: { decision_id: "dec_x", index: 0, judgement: "accepted" } } }));
  await card.getByRole("button", { name: "Accept item 4: Surface finish Ra 1.6" }).click();
  await card.getByRole("status").getByText(/Recorded: accepted item 4/).waitFor();
  assert.equal(await card.getByText("bore tolerance").count(), 0);
  await page.close();
});

test("card_renders_a_result_without_structured_content_from_its_json_text_block", async () => {
  // What a 2025-03-26 session gets: the same JSON as the second text block only (here the
  // full review the card asks for, answered without structuredContent).
  const old = { content: showFull.content };
  const page = await browser.newPage({ viewport: { width: 1100, height: 1800 } });
  await page.exposeFunction("toServer", async () => ({ error: { code: -32603, message: "unused" } }));
  await page.setContent(HOST_PAGE);
  await page.evaluate(([input, result]) => {
    window.hostState = { context: { theme: "light" }, toolInput: input, toolResult: result };
  }, [{ artifact: artifact(REV) }, old]);
  await page.evaluate((html) => window.loadCard(html), cardHtml);
  const card = page.frameLocator("#card");
  await card.getByRole("heading", { name: /Review of bracket\.step/ }).waitFor();
  await card.getByRole("button", { name: "Accept item 1: Bore 12H7" }).waitFor();
  await page.close();
});

test("card_shows_a_refused_verdict_and_records_nothing", async () => {
  // A tools/call the server refuses (the decision forgotten since the card was shown) is
  // reported in the card, not rendered as success.
  const { page, card } = await openCard({ context: { theme: "light" } });
  await server.call("forget", { artifact: artifact(OLD), subject: "bore tolerance" });
  await page.evaluate(() => {
    const real = window.toServer;
    window.toServer = (p) => real(Object.assign({}, p, { arguments: Object.assign({}, p.arguments, { decision_id: "dec_gone" }) }));
  });
  await card.getByRole("button", { name: "Accept item 1: Bore 12H7" }).click();
  await card.getByRole("status").getByText(/no decision dec_gone/).waitFor();
  const back = await server.call("recall_decisions", { artifact: artifact(REV), subject: SUBJECT });
  assert.equal(back.structuredContent.decisions[0].basis[0].verdict, undefined);
  await page.close();
});

test("card_click_on_an_item_that_changed_is_refused_and_the_card_shows_the_decision_again", async () => {
  // The card shows "Bore is H7" first; while it is open, the assistant re-records the
  // decision with a new first item. The click on the bore must not land on the wall.
  const rev = "sha256:" + "3".repeat(64);
  const subject = "bracket wall";
  const item = (requirement, state) => ({ requirement, source: "drawing", state, evidence: "e" });
  await server.call("remember_decision", {
    artifact: artifact(rev), subject, disposition: "hold",
    basis: [item("Bore is H7", "satisfied"), item("Flatness 0.05", "satisfied")],
  });
  const shown = await server.call("show_review", { artifact: artifact(rev) });
  const shownFull = await server.call("show_review", { artifact: artifact(rev), detail: "full" });
  const { page, card } = await openCard({
    context: { theme: "light" }, toolInput: { artifact: artifact(rev) }, result: shown,
  });
  await card.getByRole("button", { name: "Reject item 1: Bore is H7" }).waitFor();
  await server.call("remember_decision", {
    artifact: artifact(rev), subject, disposition: "hold",
    basis: [item("Wall thickness 2 mm", "violated"), item("Bore is H7", "satisfied"),
      item("Flatness 0.05", "satisfied")],
  });
  const calls = () => page.evaluate(() => window.fromCard
    .filter((m) => m.method === "tools/call").map((m) => m.params));
  await card.getByRole("button", { name: "Reject item 1: Bore is H7" }).click();
  await card.getByRole("status").getByText(/The decision changed since you saw it/).waitFor();
  await card.getByRole("status").getByText(/Wall thickness 2 mm/).waitFor();
  // The model was answered the summary: the card first asked for the full review through the
  // host. The click carried the digest of the item shown; the card then asked for the review
  // again, with show_review's own arguments, and shows the decision as it is now.
  const sent = await calls();
  assert.equal(shown.structuredContent.detail, "summary");
  assert.deepEqual(sent[0], { name: "show_review", arguments: { detail: "full", artifact: artifact(rev) } });
  assert.equal(sent[1].name, "record_verdict");
  const digest = shownFull.structuredContent.decisions[0].basis[0].digest;
  assert.equal(typeof digest, "string");
  assert.equal(sent[1].arguments.item_digest, digest);
  assert.match(sent[1].arguments.card_proof, /^cp1\./);
  assert.deepEqual(sent[2], { name: "show_review", arguments: { detail: "full", artifact: artifact(rev) } });
  await card.getByRole("button", { name: "Reject item 1: Wall thickness 2 mm" }).waitFor();
  await card.getByRole("button", { name: "Reject item 2: Bore is H7" }).waitFor();
  let back = await server.call("recall_decisions", { artifact: artifact(rev), subject });
  assert.deepEqual(back.structuredContent.decisions[0].basis.map((b) => b.verdict), [undefined, undefined, undefined],
    "nothing was recorded, on the wall least of all");
  // Given again on the item as it is now, it lands on the bore.
  await card.getByRole("button", { name: "Reject item 2: Bore is H7" }).click();
  await card.getByRole("status").getByText(/Recorded: rejected item 2/).waitFor();
  back = await server.call("recall_decisions", { artifact: artifact(rev), subject });
  const basis = back.structuredContent.decisions[0].basis;
  assert.equal(basis[0].verdict, undefined);
  assert.equal(basis[1].verdict.judgement, "rejected");
  assert.equal(basis[1].verdict.via, "app");
  assert.equal(basis[1].verdict.author, AUTHOR);
  await page.close();
});

test("card_in_a_host_that_never_declared_the_extension_gets_its_data_and_records_the_click", async () => {
  // VS Code renders MCP Apps without declaring the extension: its session declares nothing.
  // The card is linked all the same, gets the review and its proofs, and records the click;
  // the same record_verdict call without the card's proof (what a model could send) is
  // refused and writes nothing.
  const plain = new Server(server.db);
  try {
    const init = await plain.send("initialize", {
      protocolVersion: "2025-11-25",
      capabilities: {},
      clientInfo: { name: "vscode-like-host", version: "1" },
    });
    assert.equal(init.error, undefined);
    plain.notify("notifications/initialized", {});
    const tools = (await plain.send("tools/list", {})).result.tools;
    const show = tools.find((t) => t.name === "show_review");
    assert.equal(show._meta.ui.resourceUri, CARD_URI, "the card is linked for every host");
    assert.equal(tools.find((t) => t.name === "record_verdict"), undefined,
      "not listed to a host that may show every tool to its model");
    const rev = "sha256:" + "4".repeat(64);
    const subject = "plain host";
    await plain.call("remember_decision", {
      artifact: artifact(rev), subject, disposition: "hold",
      basis: [{ requirement: "Hole depth 18 mm", source: "drawing", state: "satisfied" },
        { requirement: "Edge break 0.2", source: "shop-spec", state: "unresolved", question: "all edges?" }],
    });
    const read = await plain.send("resources/read", { uri: show._meta.ui.resourceUri });
    const html = read.result.contents[0].text;
    const shown = await plain.call("show_review", { artifact: artifact(rev) });
    const { page, card } = await openCard({
      context: { theme: "light" }, toolInput: { artifact: artifact(rev) }, result: shown, via: plain, html,
    });
    await card.getByRole("button", { name: "Accept item 1: Hole depth 18 mm" }).click();
    await card.getByRole("status").getByText(/Recorded: accepted item 1/).waitFor();
    let back = await plain.call("recall_decisions", { artifact: artifact(rev), subject });
    let basis = back.structuredContent.decisions[0].basis;
    assert.equal(basis[0].verdict.via, "app");
    assert.equal(basis[0].verdict.judgement, "accepted");

    // The card's own call, replayed on item 2 without its proof: refused, nothing written.
    const sent = await page.evaluate(() => window.fromCard
      .filter((m) => m.method === "tools/call" && m.params.name === "record_verdict").map((m) => m.params));
    assert.equal(sent.length, 1);
    const { card_proof, ...bare } = sent[0].arguments;
    assert.match(card_proof, /^cp1\./);
    const full = await plain.call("show_review", { artifact: artifact(rev), detail: "full" });
    const forged = await plain.send("tools/call", { name: "record_verdict", arguments: {
      ...bare, index: 1, item_digest: full.structuredContent.decisions[0].basis[1].digest } });
    assert.equal(forged.result.isError, true, JSON.stringify(forged));
    assert.match(forged.result.content[0].text, /carries no card_proof/);
    back = await plain.call("recall_decisions", { artifact: artifact(rev), subject });
    basis = back.structuredContent.decisions[0].basis;
    assert.equal(basis[1].verdict, undefined, "nothing was written");
    await page.close();
  } finally {
    plain.close();
  }
});

test("card_shows_control_and_bidi_characters_of_stored_strings_as_escapes", async () => {
  // A right-to-left override in a stored string reordered the card's own words after it
  // (the "stale" mark after a note, "(not a disposition of this revision)" after the old
  // disposition, the status line after the subject); an escape or C1 control hid in the
  // text. The card shows them as escapes, as the report, the Form 3 and the terminal do.
  const rev = "sha256:" + "5".repeat(64);
  const bidi = "x\u202edeifsitas\u2066 \u001b[2J\u009b1m\u2028\u200fz";
  const subject = "rtl " + bidi;
  await server.call("remember_decision", {
    artifact: artifact(rev), subject, disposition: "hold " + bidi, summary: "summary " + bidi,
    basis: [{ requirement: "req " + bidi, source: "drawing", sourceDetail: bidi, state: "unresolved",
      question: "q " + bidi, evidence: bidi, faces: [bidi] }],
  });
  await server.call("remember", { artifact: artifact(rev), name: "name " + bidi, note: "note " + bidi, entity_ids: [bidi] });
  const shown = await server.call("show_review", { artifact: artifact(rev) });
  const { page, card } = await openCard({ context: { theme: "light" }, toolInput: { artifact: artifact(rev) }, result: shown });
  await card.getByRole("button", { name: /^Accept item 1: req x/ }).click();
  await card.getByRole("status").getByText(/Recorded: accepted item 1/).waitFor();
  const frame = page.frames().find((f) => f !== page.mainFrame());
  const seen = await frame.evaluate(() => {
    const labels = Array.from(document.querySelectorAll("[aria-label]")).map((e) => e.getAttribute("aria-label"));
    return [document.body.innerText, document.title].concat(labels).join("\n");
  });
  const raw = seen.match(/[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069\u200e\u200f\u061c]/g);
  assert.equal(raw, null, `raw ${JSON.stringify(raw)} in the card`);
  assert.ok(seen.includes("x\\u{202e}deifsitas\\u{2066} \\u{1b}[2J\\u{9b}1m\\u{2028}\\u{200f}z"), seen);
  await card.getByRole("status").getByText(/of \u201crtl x\\u\{202e\}/).waitFor();
  await page.close();
});

test("card_shows_invisible_characters_of_stored_strings_as_escapes", async () => {
  // A zero width space or a byte order mark made "bore\u200b" look like "bore" beside it,
  // and tag characters (U+E0000-E007F) carried text a person does not see: shown as escapes.
  const rev = "sha256:" + "c".repeat(64);
  const hidden = "bore\u200b\ufeff\u{e0061}\u{e0070}";
  await server.call("remember_decision", {
    artifact: artifact(rev), subject: hidden, disposition: "hold",
    basis: [{ requirement: "req " + hidden, source: "drawing", state: "satisfied" }],
  });
  const shown = await server.call("show_review", { artifact: artifact(rev) });
  const { page } = await openCard({ context: { theme: "light" }, toolInput: { artifact: artifact(rev) }, result: shown });
  const frame = page.frames().find((f) => f !== page.mainFrame());
  await frame.waitForFunction(() => document.body.innerText.includes("req bore"));
  const seen = await frame.evaluate(() => document.body.innerText);
  assert.equal(seen.match(/[\u200b\ufeff\u{e0000}-\u{e007f}]/gu), null, seen);
  assert.ok(seen.includes("req bore\\u{200b}\\u{feff}\\u{e0061}\\u{e0070}"), seen);
  await page.close();
});

test("card_shows_a_tower_of_combining_marks_past_its_fourth_as_escapes", async () => {
  // "a" with 200 combining accents was drawn as a tower over the card's lines above and
  // below it. Four marks on a letter are drawn (Vietnamese stacks two), the rest escaped.
  const rev = "sha256:" + "d".repeat(64);
  const tower = "bore a" + "\u0301".repeat(200) + " end";
  await server.call("remember_decision", {
    artifact: artifact(rev), subject: "tower", disposition: "hold",
    basis: [{ requirement: tower, source: "drawing", state: "satisfied" }],
  });
  const shown = await server.call("show_review", { artifact: artifact(rev) });
  const { page } = await openCard({ context: { theme: "light" }, toolInput: { artifact: artifact(rev) }, result: shown });
  const frame = page.frames().find((f) => f !== page.mainFrame());
  await frame.waitForFunction(() => document.body.innerText.includes("bore a"));
  const seen = await frame.evaluate(() => document.body.innerText);
  assert.equal(seen.match(/\u0301{5,}/g), null, seen.slice(0, 400));
  assert.ok(seen.includes("bore a" + "\u0301".repeat(4) + "\\u{301}".repeat(196) + " end"), seen.slice(0, 400));
  await page.close();
});

test("card_subtitle_counts_the_revisions_decisions_and_records_not_the_ones_that_fit", async () => {
  // A review too large for one answer comes with `omitted`: the subtitle said "2 decisions,
  // 2 records" of 40 and 40. It counts those that did not fit too.
  const rev = "sha256:" + "6".repeat(64);
  for (let i = 0; i < 40; i++) {
    await server.call("remember_decision", {
      artifact: artifact(rev), subject: `wall ${i}`, disposition: "hold",
      basis: Array.from({ length: 10 }, (_, j) => ({ requirement: `Req ${j}`, source: "drawing", state: "satisfied", evidence: "e".repeat(400) })),
    });
    await server.call("remember", { artifact: artifact(rev), name: `feature ${i}`, note: "n".repeat(3000), entity_ids: [] });
  }
  const shown = await server.call("show_review", { artifact: artifact(rev) });
  const { page, card } = await openCard({ context: { theme: "light" }, toolInput: { artifact: artifact(rev) }, result: shown });
  await card.getByText(/did not fit; ask the assistant to recall them/).waitFor();
  await card.getByText(/ \u00b7 40 decisions, 40 records\./).waitFor();
  await page.close();
});

/** The card's frame of `page`. */
const cardFrame = (page) => page.frames().find((f) => f !== page.mainFrame());

test("card_sends_only_methods_the_mcp_apps_specification_defines", async () => {
  // The card logged every line a second time as "ui/log", a method no MCP Apps revision or
  // SDK defines (the log line is notifications/message): a host validating the View's
  // messages rejects it as unknown (ext-apps' validator, rule APP-103).
  const known = new Set(["ui/initialize", "ui/notifications/initialized", "ui/notifications/size-changed",
    "ui/notifications/request-teardown", "ui/open-link", "ui/download-file", "ui/message",
    "ui/update-model-context", "ui/request-display-mode", "tools/call", "tools/list", "resources/read",
    "notifications/message", "ping"]);
  const rev = "sha256:" + "7".repeat(64);
  await server.call("remember_decision", {
    artifact: artifact(rev), subject: "methods", disposition: "hold",
    basis: [{ requirement: "Chamfer 0.5x45", source: "drawing", state: "unresolved", question: "all edges?" }],
  });
  const shown = await server.call("show_review", { artifact: artifact(rev) });
  const { page, card } = await openCard({ context: { theme: "light" }, toolInput: { artifact: artifact(rev) }, result: shown });
  await card.getByRole("button", { name: "Accept item 1: Chamfer 0.5x45" }).click();
  await card.getByRole("status").getByText(/Recorded: accepted item 1/).waitFor();
  const sent = await page.evaluate(() => window.fromCard);
  for (const m of sent) {
    assert.equal(m.jsonrpc, "2.0", JSON.stringify(m));
    if (m.method !== undefined) assert.ok(known.has(m.method), `unknown method ${m.method}`);
  }
  assert.ok(sent.some((m) => m.method === "notifications/message" && m.params.level === "info"));
  await page.close();
});

test("card_reports_its_size_after_the_handshake_and_shrinks_with_its_content", async () => {
  // A host that answers ui/initialize late and takes no notice of the card before it has
  // (the specification's lifecycle: the View's messages follow the handshake) was never told
  // the card's size: the card sent it once, before, and never again while it did not change.
  // And the card measured the document, never less than the frame: grown once, it never
  // shrank when its content did.
  const { page, card } = await openCard({ context: { theme: "light" }, host: { initDelay: 400, ignoreBeforeInit: true } });
  await card.getByText("Is the thread rolled or cut?").first().waitFor();
  await settle(page);
  const sizes = async () => {
    const log = await page.evaluate(() => window.fromCard);
    const init = log.findIndex((m) => m.method === "ui/notifications/initialized");
    assert.ok(init >= 0);
    return log.slice(init).filter((m) => m.method === "ui/notifications/size-changed").map((m) => m.params);
  };
  const big = await sizes();
  assert.ok(big.length > 0, "a size after the handshake");
  const tall = big[big.length - 1].height;
  assert.ok(tall > 600, `${tall}`);
  assert.equal(await page.evaluate(() => document.getElementById("card").style.height), tall + "px");

  // The host shows a review with nothing in it: the card reports a smaller size. (Another
  // file: a new revision of FILE would show FILE's earlier review as stale.)
  const empty = await server.call("show_review", {
    artifact: { ...artifact("sha256:" + "8".repeat(64)), uri: "file:///w/parts/empty.step" }, detail: "full",
  });
  await page.evaluate((result) => window.sendToCard({ method: "ui/notifications/tool-result", params: result }), empty);
  await card.getByText("No decision recorded for this revision.").waitFor();
  await settle(page);
  const after = await sizes();
  const short = after[after.length - 1].height;
  const content = await cardFrame(page).evaluate(() => Math.ceil(document.body.getBoundingClientRect().height));
  assert.ok(short < tall, `${short} < ${tall}`);
  assert.ok(Math.abs(short - content) <= 2, `reported ${short}, content ${content}`);
  await page.close();
});

test("card_says_so_when_the_host_never_answers_a_click_and_takes_the_late_answer", async () => {
  // A host that never passed a click on (or lost it) left the row's buttons disabled and the
  // status at "Recording..." for good, with nothing to say what happened.
  const rev = "sha256:" + "9".repeat(64);
  await server.call("remember_decision", {
    artifact: artifact(rev), subject: "slow host", disposition: "hold",
    basis: [{ requirement: "Knurl 0.8 mm pitch", source: "drawing", state: "unresolved", question: "straight or diamond?" }],
  });
  const shown = await server.call("show_review", { artifact: artifact(rev), detail: "full" });
  // The card's own time runs ten times faster here (Playwright's clock does not reach
  // a sandboxed frame): its wait of 30 s is 3 s.
  const fast = "<script>(function () { var st = window.setTimeout; window.setTimeout = function (f, ms) { return st(f, (ms || 0) / 10); }; })();</script>";
  const { page, card } = await openCard({
    context: { theme: "light" }, toolInput: { artifact: artifact(rev) }, result: shown,
    host: { hangTools: ["record_verdict"] }, html: cardHtml.replace("<head>", "<head>" + fast),
  });
  const accept = card.getByRole("button", { name: "Accept item 1: Knurl 0.8 mm pitch" });
  await page.evaluate(() => { window.hostState.hangTools = ["record_verdict"]; });
  await accept.click();
  assert.equal(await accept.isDisabled(), true);
  await card.getByRole("status").getByText(/The host has not answered in 30 seconds: the verdict on item 1 may not be recorded/).waitFor();
  assert.equal(await accept.isEnabled(), true, "the engineer can click again");
  // The answer that comes late after all is still taken.
  const click = await page.evaluate(() => window.fromCard.filter((m) => m.method === "tools/call" && m.params.name === "record_verdict")[0]);
  const m = await server.send("tools/call", click.params);
  await page.evaluate(([id, result]) => window.sendToCard({ id, result }), [click.id, m.result]);
  await card.getByRole("status").getByText(/Recorded: accepted item 1/).waitFor();
  await card.getByText(/by the engineer \(review card, Ada Lovelace\)/).first().waitFor();
  await page.close();
});

test("card_follows_container_dimensions_and_safe_area_as_the_host_changes_them", async () => {
  // A fixed height, then a flexible one: the card kept filling 100vh of a frame now sized to
  // its content. A fixed or maximum width and the safe area insets were not applied at all.
  const { page } = await openCard({ context: { theme: "light", containerDimensions: { height: 500, width: 700 },
    safeAreaInsets: { top: 30, right: 5, bottom: 20, left: 10 } } });
  const frame = cardFrame(page);
  const styles = () => frame.evaluate(() => {
    const root = document.documentElement;
    const body = getComputedStyle(document.body);
    return { height: root.style.height, maxHeight: root.style.maxHeight, width: root.style.width,
      maxWidth: root.style.maxWidth, padding: [body.paddingTop, body.paddingRight, body.paddingBottom, body.paddingLeft] };
  });
  let s = await styles();
  assert.equal(s.height, "100vh");
  assert.equal(await frame.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth), true,
    "at a fixed width the card fills its frame, no wider");
  assert.deepEqual(s.padding, ["42px", "17px", "32px", "22px"]);
  await page.evaluate(() => window.sendToCard({ method: "ui/notifications/host-context-changed",
    params: { containerDimensions: { maxHeight: 900, maxWidth: 800 }, safeAreaInsets: { top: 0, right: 0, bottom: 0, left: 0 } } }));
  await frame.waitForFunction(() => document.documentElement.style.maxHeight === "900px");
  s = await styles();
  assert.equal(s.height, "");
  assert.equal(s.width, "");
  assert.equal(s.maxWidth, "800px");
  assert.deepEqual(s.padding, ["12px", "12px", "12px", "12px"]);
  await page.evaluate(() => window.sendToCard({ method: "ui/notifications/host-context-changed", params: { containerDimensions: {} } }));
  await frame.waitForFunction(() => document.documentElement.style.maxHeight === "");
  s = await styles();
  assert.equal(s.maxWidth, "");
  await page.close();
});

test("card_survives_malformed_host_messages", async () => {
  // A host (or a bug in one) that sends what the specification does not: the card ignores
  // it, throws nothing, and shows the next well-formed review.
  const { page, card } = await openCard({ context: { theme: "light" } });
  const errors = [];
  page.on("pageerror", (e) => errors.push(String(e)));
  const junk = [
    null, 5, "text", [], { jsonrpc: "1.0", method: "ui/notifications/tool-result", params: {} },
    { jsonrpc: "2.0" }, { jsonrpc: "2.0", id: 999, result: {} }, { jsonrpc: "2.0", id: 1, result: {} },
    { jsonrpc: "2.0", method: "ui/notifications/tool-input", params: null },
    { jsonrpc: "2.0", method: "ui/notifications/tool-input", params: { arguments: "x" } },
    { jsonrpc: "2.0", method: "ui/notifications/tool-input", params: { arguments: { artifact: 5, subject: 7 } } },
    { jsonrpc: "2.0", method: "ui/notifications/tool-result", params: null },
    { jsonrpc: "2.0", method: "ui/notifications/tool-result", params: "x" },
    { jsonrpc: "2.0", method: "ui/notifications/tool-result", params: { structuredContent: { decisions: [null, 5, "d", { basis: [null, 3] }] } } },
    { jsonrpc: "2.0", method: "ui/notifications/tool-result", params: { structuredContent: { revision: 7, decisions: [{ id: 3, subject: {}, basis: "x", trail: 5 }], records: [null, 4], stale: { decisions: [null], records: "x" }, omitted: null } } },
    { jsonrpc: "2.0", method: "ui/notifications/tool-result", params: { structuredContent: { decision: { id: "dec_x", basis: [null] } } } },
    { jsonrpc: "2.0", method: "ui/notifications/tool-result", params: { isError: true, content: "x" } },
    { jsonrpc: "2.0", method: "ui/notifications/tool-result", params: { content: [null, { type: "text", text: 5 }] } },
    { jsonrpc: "2.0", method: "ui/notifications/tool-cancelled", params: { reason: { toString: null } } },
    { jsonrpc: "2.0", method: "ui/notifications/host-context-changed", params: null },
    { jsonrpc: "2.0", method: "ui/notifications/host-context-changed", params: { theme: 5, styles: { variables: { "--x": 5, "color": "red" } }, containerDimensions: "x", safeAreaInsets: { top: "x" } } },
    { jsonrpc: "2.0", method: "ui/notifications/host-context-changed", params: { styles: null, safeAreaInsets: null } },
    { jsonrpc: "2.0", id: 77, method: "ui/resource-teardown", params: null },
    { jsonrpc: "2.0", id: 78, method: "tools/list", params: {} },
    { jsonrpc: "2.0", method: 5, params: {} },
  ];
  for (const m of junk) await page.evaluate((m) => document.getElementById("card").contentWindow.postMessage(m, "*"), m);
  await settle(page);
  await page.evaluate((result) => window.sendToCard({ method: "ui/notifications/tool-result", params: result }), showFull);
  await card.getByText("Is the thread rolled or cut?").first().waitFor();
  await card.getByRole("button", { name: "Accept item 1: Bore 12H7" }).waitFor();
  assert.deepEqual(errors, []);
  const answers = await page.evaluate(() => window.fromCard.filter((m) => m.id === 77 || m.id === 78));
  assert.deepEqual(answers.map((m) => [m.id, m.result !== undefined, m.error && m.error.code]), [[77, true, undefined], [78, false, -32601]]);
  await page.close();
});

test("card_wraps_long_unbroken_strings_within_its_frame", async () => {
  // A note, a subject, a question or a file name without a space (a hash, a path, a URL) ran
  // off the card's right edge: the page grew thousands of pixels wide, and the card asked its
  // host for that width.
  const rev = "sha256:" + "a".repeat(64);
  const long = (c) => c.repeat(3000);
  await server.call("remember_decision", {
    artifact: artifact(rev),
    subject: long("s").slice(0, 200), disposition: long("d").slice(0, 200), summary: long("m"),
    basis: [{ requirement: long("r").slice(0, 500), source: "drawing", state: "unresolved", question: long("q") }],
  });
  await server.call("remember", { artifact: artifact(rev), name: long("n").slice(0, 200), note: long("o"), entity_ids: [long("e").slice(0, 200)] });
  const shown = await server.call("show_review", { artifact: artifact(rev) });
  const { page, card } = await openCard({ context: { theme: "light" }, toolInput: { artifact: artifact(rev) }, result: shown });
  await card.getByRole("button", { name: /^Accept item 1: rrrr/ }).waitFor();
  await settle(page);
  const frame = cardFrame(page);
  const [scroll, inner] = await frame.evaluate(() => [document.documentElement.scrollWidth, window.innerWidth]);
  assert.ok(scroll <= inner, `the page is ${scroll} px wide in a frame of ${inner}`);
  const sizes = (await page.evaluate(() => window.fromCard)).filter((m) => m.method === "ui/notifications/size-changed");
  assert.ok(sizes.every((m) => m.params.width <= 1100), JSON.stringify(sizes.map((m) => m.params)));
  await page.close();
});

test("card_in_a_host_that_refuses_its_calls_still_shows_the_summary_it_was_given", async () => {
  // The model gets show_review's summary; the card asks the host for the full review. A host
  // that refuses the card's tools/call left it at "Waiting for the review from the host." with
  // only the refusal: the summary the host had given it (counts, the report resource) was
  // nowhere.
  const page = await browser.newPage({ viewport: { width: 1100, height: 1800 } });
  await page.exposeFunction("toServer", async () => ({ error: { code: -32000, message: "tool calls from apps are disabled" } }));
  await page.setContent(HOST_PAGE);
  await page.evaluate(([input, result]) => {
    window.hostState = { context: { theme: "light" }, toolInput: input, toolResult: result };
  }, [{ artifact: artifact(REV) }, showResult]);
  await page.evaluate((html) => window.loadCard(html), cardHtml);
  const card = page.frameLocator("#card");
  await card.getByRole("status").getByText(/tool calls from apps are disabled/).waitFor();
  const line = showResult.content[0].text;
  assert.match(line, /^Review of bracket\.step/);
  await card.getByText(line, { exact: true }).waitFor();
  await page.close();
});

test("card_works_under_the_restrictive_csp_a_host_applies_by_default", async () => {
  // The card declares no domain (_meta.ui.csp all empty): a host applies the specification's
  // restrictive policy. A srcdoc frame inherits its host page's policy, so the host page
  // carries it here; the card still renders, themes and records a click, and nothing it does
  // is refused by the policy.
  const csp = "default-src 'none'; script-src 'self' 'unsafe-inline'; style-src 'self' 'unsafe-inline'; " +
    "img-src 'self' data:; media-src 'self' data:; connect-src 'none'; frame-src 'self'; object-src 'none'; base-uri 'self'";
  const rev = "sha256:" + "b".repeat(64);
  await server.call("remember_decision", {
    artifact: artifact(rev), subject: "csp", disposition: "hold",
    basis: [{ requirement: "Thread depth 12", source: "drawing", state: "unresolved", question: "blind?" }],
  });
  const shown = await server.call("show_review", { artifact: artifact(rev) });
  const page = await browser.newPage({ viewport: { width: 1100, height: 1800 } });
  const violations = [];
  page.on("console", (m) => { if (/Content Security Policy/i.test(m.text())) violations.push(m.text()); });
  await page.exposeFunction("toServer", async (params) => {
    const m = await server.send("tools/call", params);
    return m.error ? { error: m.error } : { result: m.result };
  });
  await page.setContent(HOST_PAGE.replace("<head>", `<head><meta http-equiv="Content-Security-Policy" content="${csp}">`));
  await page.evaluate(([input, result]) => {
    window.hostState = { context: { theme: "dark", safeAreaInsets: { top: 8, right: 0, bottom: 0, left: 0 },
      containerDimensions: { maxHeight: 5000 }, styles: { variables: { "--font-sans": "serif" } } }, toolInput: input, toolResult: result };
  }, [{ artifact: artifact(rev) }, shown]);
  await page.evaluate((html) => window.loadCard(html), cardHtml);
  const card = page.frameLocator("#card");
  await card.getByRole("button", { name: "Reject item 1: Thread depth 12" }).click();
  await card.getByRole("status").getByText(/Recorded: rejected item 1/).waitFor();
  assert.ok(isDark(await bodyBackground(page)));
  assert.equal(await cardFrame(page).evaluate(() => getComputedStyle(document.body).paddingTop), "20px");
  assert.deepEqual(violations, []);
  await page.close();
});

test("card_in_a_narrow_frame_scrolls_its_tables_not_the_page", async () => {
  // A basis table wider than the frame scrolls inside its own box; its hidden labels for
  // screen readers (absolutely positioned) escaped that box, so the whole page scrolled
  // sideways and the card asked its host for more width than the frame had.
  const { page, card } = await openCard({ context: { theme: "light" } });
  // Wider than the width at which items stack (50rem), narrower than the table.
  await page.setViewportSize({ width: 850, height: 1800 });
  await card.getByRole("button", { name: "Accept item 1: Bore 12H7" }).waitFor();
  await settle(page);
  const [scroll, inner, table] = await cardFrame(page).evaluate(() => [document.documentElement.scrollWidth,
    window.innerWidth, document.querySelector(".table-wrap table").getBoundingClientRect().width]);
  assert.ok(table > inner, `the table (${table} px) is wider than the frame (${inner} px) here`);
  assert.ok(scroll <= inner, `the page is ${scroll} px wide in a frame of ${inner}`);
  const sizes = (await page.evaluate(() => window.fromCard)).filter((m) => m.method === "ui/notifications/size-changed");
  assert.ok(sizes[sizes.length - 1].params.width <= 850, JSON.stringify(sizes.map((m) => m.params)));
  await page.close();
});

test("card_says_so_when_the_host_never_answers_its_handshake", async () => {
  // A host that never answers ui/initialize (one that does not speak this revision of MCP
  // Apps) left the card at "Waiting for the review from the host." for good.
  const fast = "<script>(function () { var st = window.setTimeout; window.setTimeout = function (f, ms) { return st(f, (ms || 0) / 10); }; })();</script>";
  const page = await browser.newPage({ viewport: { width: 1100, height: 1800 } });
  await page.setContent('<!DOCTYPE html><html lang="en"><head><title>mute host</title></head><body><iframe id="card" sandbox="allow-scripts" title="card"></iframe></body></html>');
  await page.evaluate((html) => { document.getElementById("card").srcdoc = html; }, cardHtml.replace("<head>", "<head>" + fast));
  const card = page.frameLocator("#card");
  await card.getByRole("status").getByText(/The host has not answered in 30 seconds: .*MCP Apps/).waitFor();
  await page.close();
});

test("card_in_a_narrow_frame_shows_each_items_buttons_without_scrolling", async () => {
  // At the width a host gives an inline app (here 600 px) the basis table, nine columns with
  // their minimum widths, was wider than the frame: the Verdict and Your verdict columns, the
  // Accept and Reject buttons, were out of sight to the right of a scrolling box. In a narrow
  // frame each item now reads top to bottom, every value named by its column.
  const { page, card } = await openCard({ context: { theme: "light" } });
  await page.setViewportSize({ width: 600, height: 1800 });
  const reject = card.getByRole("button", { name: "Reject item 1: Bore 12H7" });
  await reject.waitFor();
  await settle(page);
  const box = await reject.boundingBox();
  assert.ok(box.x >= 0 && box.x + box.width <= 600, JSON.stringify(box));
  const frame = cardFrame(page);
  assert.equal(await frame.evaluate(() => {
    const wrap = document.querySelector(".table-wrap");
    return wrap.scrollWidth <= wrap.clientWidth;
  }), true, "the table fits its box");
  const label = await frame.evaluate(() => getComputedStyle(document.querySelector("td[data-label='Evidence']"), "::before").content);
  assert.match(label, /Evidence/);
  // At 1,100 px the table is a table again, and fits: the last column's Reject was cut.
  await page.setViewportSize({ width: 1100, height: 1800 });
  await settle(page);
  assert.equal(await frame.evaluate(() => getComputedStyle(document.querySelector("thead")).display), "table-header-group");
  const rejectBox = await reject.boundingBox();
  assert.ok(rejectBox.x + rejectBox.width <= 1100 - 12, JSON.stringify(rejectBox));
  await page.setViewportSize({ width: 600, height: 1800 });
  await settle(page);
  // An empty value takes no line: item 1 has no question, item 3 has one.
  const shown = await frame.evaluate(() => Array.from(document.querySelectorAll("td[data-label='Question']"))
    .map((td) => getComputedStyle(td).display));
  assert.deepEqual(shown.slice(0, 3), ["none", "none", "block"]);
  await page.close();
});

test("card_names_on_a_carried_item_the_verdict_its_old_revision_got_after_the_carry", async () => {
  // Clone B carries "carried bore" from R1 to R2; clone A, not yet synced, gives the
  // engineer's verdict on item 2 at R1 in its card (a hostile author and reason); both sync.
  // Every reader of R2 named that verdict but the card, which showed item 2 as inherited
  // with nothing after. Now the item says it, as text, and a click there is recorded on R2's
  // decision, after which nothing is named; the card's counts follow the click.
  const R1 = "sha256:" + "5".repeat(64);
  const R2 = "sha256:" + "6".repeat(64);
  const subject = "carried bore";
  const evil = "<b>Eve</b> & co";
  const folder = path.join(dir, "carry-shared");
  const [dbA, dbB] = [path.join(dir, "clone-a.db"), path.join(dir, "clone-b.db")];
  const a = await session(dbA, evil);
  const stated = await a.call("remember_decision", {
    artifact: artifact(R1), subject, disposition: "hold",
    basis: [
      { requirement: "Bore 12H7", source: "drawing", state: "satisfied", faces: ["face:3"] },
      { requirement: "Flat 0.05", source: "drawing", state: "satisfied", faces: ["face:4"] },
    ],
  });
  // Item 1 judged before the carry: its history, said on the item in the same words.
  const first = await a.call("show_review", { artifact: artifact(R1), detail: "full" });
  const id1 = stated.structuredContent.decision.id;
  await a.call("record_verdict", { decision_id: id1, index: 0, item_digest: first.structuredContent.decisions[0].basis[0].digest,
    judgement: "accepted", card_proof: first._meta["review-mcp/card"].proofs[id1], seen_verdict_at: "" });
  sync(dbA, folder);
  sync(dbB, folder);
  const carrier = await session(dbB);
  await carrier.call("carry_forward", { from: artifact(R1), to: artifact(R2), changed: [],
    map: [{ from: "face:3", to: "face:13" }, { from: "face:4", to: "face:14" }] });
  await carrier.closed();
  sync(dbB, folder);
  const old = await a.call("show_review", { artifact: artifact(R1), detail: "full" });
  const oldDecision = old.structuredContent.decisions[0];
  await a.call("record_verdict", {
    decision_id: oldDecision.id, index: 1, item_digest: oldDecision.basis[1].digest, judgement: "rejected",
    reason: "0.08 measured " + HOSTILE, card_proof: old._meta["review-mcp/card"].proofs[oldDecision.id],
    seen_verdict_at: "",
  });
  await a.closed();
  sync(dbA, folder);
  sync(dbB, folder);

  const b = await session(dbB);
  try {
    const shown = await b.call("show_review", { artifact: artifact(R2) });
    const { page, card } = await openCard({ context: { theme: "light" }, toolInput: { artifact: artifact(R2) },
      result: shown, via: b });
    const frame = cardFrame(page);
    const accept = card.getByRole("button", { name: "Accept item 2: Flat 0.05" });
    await accept.waitFor();
    const notes = () => frame.evaluate(() => Array.from(document.querySelectorAll(".after-carry"))
      .map((e) => [e.closest("tr").querySelector("td").textContent, e.textContent]));
    const said = await notes();
    assert.equal(said.length, 1, JSON.stringify(said));
    assert.equal(said[0][0], "2", "on item 2");
    // The author is not plain and the reason is stored text: both quoted, as every reader
    // quotes them, so neither can go on as the card's words (it did: "(review card, <b>Eve…").
    const prefix = `after the carry, at revision sha256:555555555555: rejected by the engineer (review card, "${evil}"), `;
    assert.ok(said[0][1].startsWith(prefix), said[0][1]);
    assert.ok(said[0][1].endsWith(`: "0.08 measured ${HOSTILE.replace(/"/g, '\\"')}"`), said[0][1]);
    assert.equal(await frame.evaluate(() => document.querySelectorAll("img, b").length), 0, "stored text is text");
    assert.ok(!(await page.evaluate(() => window.fromCard)).includes("pwned"));
    const history = await frame.evaluate(() => Array.from(document.querySelectorAll(".verdict-by"))
      .filter((e) => e.textContent.includes("(history)")).map((e) => [e.closest("tr").querySelector("td").textContent, e.textContent]));
    assert.equal(history.length, 1, JSON.stringify(history));
    assert.equal(history[0][0], "1", "on item 1");
    assert.match(history[0][1], new RegExp("^at revision sha256:555555555555 \\(history\\): accepted by the engineer " +
      "\\(review card, \"<b>Eve</b> & co\"\\), 20\\d\\d-[^ ]*Z$"));
    await card.getByText("Carried review: 0 to re-verify first, 2 inherited (not re-verified), 0 stated at this revision.").waitFor();
    await card.getByText(/^Verdicts: 0 accepted, 0 rejected \(0 given by the engineer, 0 relayed by the assistant\), 2 awaiting the engineer\./).waitFor();

    // Given in the card, the verdict is recorded on R2's decision; nothing is named since.
    await card.getByRole("textbox", { name: "Reason for item 2: Flat 0.05" }).fill("0.04 re-measured");
    await accept.click();
    await card.getByRole("status").getByText(/Recorded: accepted item 2/).waitFor();
    assert.deepEqual(await notes(), []);
    const now = await b.call("show_review", { artifact: artifact(R2), detail: "full" });
    const wl = now.structuredContent.worklist;
    await card.getByText(`Carried review: ${wl.re_verify} to re-verify first, ${wl.inherited} inherited (not re-verified), ` +
      `${wl.stated_here} stated at this revision.`).waitFor();
    assert.deepEqual([wl.inherited, wl.stated_here], [1, 1]);
    await card.getByText(/^Verdicts: 1 accepted, 0 rejected \(1 given by the engineer, 0 relayed by the assistant\), 1 awaiting the engineer\./).waitFor();
    const back = await b.call("recall_decisions", { artifact: artifact(R2), subject });
    const d = back.structuredContent.decisions[0];
    assert.equal(d.id, now.structuredContent.decisions[0].id, "R2's decision");
    assert.notEqual(d.id, oldDecision.id);
    assert.equal(d.basis[1].verdict.judgement, "accepted");
    assert.equal(d.basis[1].verdict.via, "app");
    assert.equal(d.basis[1].verdict.reason, "0.04 re-measured");
    assert.equal(d.basis[1].verdict.author, AUTHOR);
    assert.equal(back.structuredContent.verdicts_after_carry, undefined);
    await page.close();
  } finally {
    b.close();
  }
});

test("card_names_the_ids_a_judged_item_lost_to_a_carry", async () => {
  // A requirement about two holes (face:10, face:11), neither in carry_forward's map, read
  // "none at this revision (… not carried)" until the engineer judged it at the new revision;
  // then the card's Faces cell said "whole part". It names the ids it lost and their revision,
  // as the report and the Form 3 do; an item about the whole part still says so.
  const R1 = "sha256:" + "7".repeat(64);
  const R2 = "sha256:" + "8".repeat(64);
  const s = await session(path.join(dir, "lost-ids.db"));
  try {
    await s.call("remember_decision", {
      artifact: artifact(R1), subject: "holes", disposition: "hold",
      basis: [
        { requirement: "Two holes 6.6 on 40 centres", source: "drawing", state: "satisfied", faces: ["face:10", "face:11"] },
        { requirement: "Material 6061-T6", source: "shop-spec", state: "satisfied", faces: [] },
      ],
    });
    await s.call("carry_forward", { from: artifact(R1), to: artifact(R2), map: [] });
    const before = await s.call("show_review", { artifact: artifact(R2), detail: "full" });
    const d = before.structuredContent.decisions[0];
    await s.call("record_verdict", { decision_id: d.id, index: 0, item_digest: d.basis[0].digest,
      judgement: "accepted", card_proof: before._meta["review-mcp/card"].proofs[d.id], seen_verdict_at: "" });
    const shown = await s.call("show_review", { artifact: artifact(R2) });
    const { page, card } = await openCard({ context: { theme: "light" }, toolInput: { artifact: artifact(R2) },
      result: shown, via: s });
    await card.getByRole("button", { name: "Accept item 2: Material 6061-T6" }).waitFor();
    const faces = await cardFrame(page).evaluate(() => Array.from(document.querySelectorAll("td.mono"))
      .map((e) => e.textContent));
    assert.deepEqual(faces, [
      "none at this revision (face:10, face:11 of revision sha256:777777777777 not carried)",
      "whole part",
    ]);
    await page.close();
  } finally {
    s.close();
  }
});

test("card_counts_a_verdict_the_assistant_relayed_as_the_report_does", async () => {
  // The card said "1 accepted, 0 awaiting the engineer" of an item whose only verdict the
  // assistant relayed; the report (and the terminal and request_verdicts, which ask it again)
  // do not count that one as the engineer's: both items await the engineer.
  const rev = "sha256:" + "7".repeat(64);
  await server.call("remember_decision", {
    artifact: artifact(rev), subject: "relayed", disposition: "hold",
    basis: [{ requirement: "Chamfer 0.5", source: "drawing", state: "satisfied", verdict: { judgement: "accepted" } },
      { requirement: "Thread M5", source: "drawing", state: "satisfied" }],
  });
  const shown = await server.call("show_review", { artifact: artifact(rev) });
  const { page, card } = await openCard({ context: { theme: "light" }, toolInput: { artifact: artifact(rev) }, result: shown });
  await card.getByText(/^Verdicts: 1 accepted, 0 rejected \(0 given by the engineer, 1 relayed by the assistant\), 2 awaiting the engineer\./).waitFor();
  await page.close();
});

test("card_click_on_a_decision_carried_on_since_says_where_it_is_judged_and_shows_it_again", async () => {
  // The review was carried to a later revision while the card was open: the click was
  // refused with a sentence meant for the model, shown as it was, and the card kept offering
  // Accept and Reject on a decision no verdict may be given on. Now it shows the review
  // again, the decision carried on and without buttons, and says where to judge it.
  const from = "sha256:" + "8".repeat(64);
  const to = "sha256:" + "9".repeat(64);
  await server.call("remember_decision", {
    artifact: artifact(from), subject: "carried while open", disposition: "hold",
    basis: [{ requirement: "Keyway 4 mm", source: "drawing", state: "satisfied" }],
  });
  const shown = await server.call("show_review", { artifact: artifact(from) });
  const { page, card } = await openCard({ context: { theme: "light" }, toolInput: { artifact: artifact(from) }, result: shown });
  const accept = card.getByRole("button", { name: "Accept item 1: Keyway 4 mm" });
  await accept.waitFor();
  await server.call("carry_forward", { from: artifact(from), to: artifact(to), map: [] });
  await accept.click();
  await card.getByRole("status").getByText(new RegExp("was carried to revision " + to +
    " \\(carry_forward\\): judge it there\\), so your verdict was not recorded\\. It is shown again below as it is now\\.$")).waitFor();
  await card.getByText("Carried to revision sha256:999999999999 (carry_forward): judge it there.").waitFor();
  assert.equal(await card.getByRole("button", { name: /^(Accept|Reject) item/ }).count(), 0);
  const back = await server.call("recall_decisions", { artifact: artifact(from), subject: "carried while open" });
  assert.equal(back.structuredContent.decisions[0].basis[0].verdict, undefined);
  await page.close();
});

test("card_of_a_revision_whose_carried_copy_was_forgotten_says_to_state_it_again", async () => {
  // The decision's copy at the revision it was carried to was forgotten since: the card said
  // to judge it there, where nothing is left. It says, as the terminal does, to state it again.
  const from = "sha256:" + "d".repeat(64);
  const to = "sha256:" + "e".repeat(64);
  await server.call("remember_decision", {
    artifact: artifact(from), subject: "carried then forgotten", disposition: "hold",
    basis: [{ requirement: "Slot 6 mm", source: "drawing", state: "satisfied" }],
  });
  await server.call("carry_forward", { from: artifact(from), to: artifact(to), map: [] });
  await server.call("forget", { artifact: artifact(to), subject: "carried then forgotten" });
  const shown = await server.call("show_review", { artifact: artifact(from) });
  const { page, card } = await openCard({ context: { theme: "light" }, toolInput: { artifact: artifact(from) }, result: shown });
  await card.getByText("Carried to revision sha256:eeeeeeeeeeee (carry_forward) and forgotten there: state it again " +
    "at the part's current revision (remember_decision), then judge it there.").waitFor();
  assert.equal(await card.getByRole("button", { name: /^(Accept|Reject) item/ }).count(), 0);
  await page.close();
});

test("card_of_a_review_carried_on_twice_names_the_revision_it_stands_at", async () => {
  // Carried from R to S, then from S to T: the card sent the engineer to S, carried on too.
  const r = "sha256:" + "f".repeat(64);
  const s = "sha256:" + "0".repeat(64);
  const t = "sha256:" + "ab".repeat(32);
  await server.call("remember_decision", {
    artifact: artifact(r), subject: "carried twice", disposition: "hold",
    basis: [{ requirement: "Hole 5 mm", source: "drawing", state: "satisfied" }],
  });
  await server.call("carry_forward", { from: artifact(r), to: artifact(s), map: [] });
  await server.call("carry_forward", { from: artifact(s), to: artifact(t), map: [] });
  const shown = await server.call("show_review", { artifact: artifact(r) });
  const { page, card } = await openCard({ context: { theme: "light" }, toolInput: { artifact: artifact(r) }, result: shown });
  await card.getByText("Carried to revision sha256:000000000000 and on to revision sha256:abababababab " +
    "(carry_forward): judge it there.").waitFor();
  await page.close();
});

test("card_labels_a_carried_items_state_and_evidence_as_the_earlier_revisions", async () => {
  // A review walked over three revisions of a bracket found the card's State column showing a
  // green "satisfied" and its Evidence column the earlier revision's measurement of the hole
  // that had just moved, beside the Accept button, where the form, the terminal and the Form 3
  // say the state and evidence are the earlier revision's. The State cell now says the carry
  // and the earlier state as text, and the Evidence cell the revision it is of, as the report
  // does; an item stated at this revision keeps its state badge.
  const R1 = "sha256:" + "e1".repeat(32);
  const R2 = "sha256:" + "e2".repeat(32);
  const at = (revision) => ({ revision, format: "step", uri: "/work/parts/carried/bracket.step", units: "mm" });
  await server.call("remember_decision", {
    artifact: at(R1), subject: "moved hole", disposition: "hold",
    basis: [{ requirement: "Hole 2 edge distance", source: "shop-spec", state: "satisfied",
      evidence: "x=20.0: 10.0 mm to the edge", faces: ["face:9"] }],
  });
  await server.call("carry_forward", { from: at(R1), to: at(R2), changed: ["face:9"],
    map: [{ from: "face:9", to: "face:9" }] });
  const cells = async (page) => cardFrame(page).evaluate(() => {
    const row = Array.from(document.querySelectorAll("tr")).find((r) => r.querySelector("td")?.textContent === "1");
    const td = row.querySelectorAll("td");
    return { state: td[3].textContent, evidence: td[4].textContent, green: td[3].querySelectorAll(".state-satisfied").length };
  });
  const shown = await server.call("show_review", { artifact: at(R2) });
  const { page, card } = await openCard({ context: { theme: "light" }, toolInput: { artifact: at(R2) }, result: shown });
  await card.getByRole("button", { name: "Accept item 1: Hole 2 edge distance" }).waitFor();
  const carried = await cells(page);
  assert.equal(carried.green, 0, JSON.stringify(carried));
  assert.equal(carried.state, "re-verify (satisfied there)", JSON.stringify(carried));
  assert.equal(carried.evidence, "at revision sha256:e1e1e1e1e1e1: x=20.0: 10.0 mm to the edge", JSON.stringify(carried));
  await page.close();

  // Stated again at R2: this revision's own state and evidence.
  await server.call("remember_decision", {
    artifact: at(R2), subject: "moved hole", disposition: "hold",
    basis: [{ requirement: "Hole 2 edge distance", source: "shop-spec", state: "satisfied",
      evidence: "x=18.0: 12.0 mm to the edge", faces: ["face:9"] }],
  });
  const again = await server.call("show_review", { artifact: at(R2) });
  const second = await openCard({ context: { theme: "light" }, toolInput: { artifact: at(R2) }, result: again });
  await second.card.getByRole("button", { name: "Accept item 1: Hole 2 edge distance" }).waitFor();
  const stated = await cells(second.page);
  assert.equal(stated.green, 1, JSON.stringify(stated));
  assert.equal(stated.evidence, "x=18.0: 12.0 mm to the edge", JSON.stringify(stated));
  await second.page.close();
});

// ---- The card against the MCP Apps specification (2026-01-26), rule by rule ----

/** Requests of the 2026-07-28 era to `s`: the envelope in each request's own _meta. */
function modern(s, caps = UI_CAPS) {
  return {
    send: (method, params = {}) => s.send(method, { ...params, _meta: { ...(params._meta || {}),
      "io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": caps } }),
  };
}

/** Tool `name` called through `via` (either era), which must succeed: its result. */
async function callVia(via, name, args) {
  const m = await via.send("tools/call", { name, arguments: args });
  assert.equal(m.error, undefined, JSON.stringify(m.error));
  assert.notEqual(m.result.isError, true, JSON.stringify(m.result));
  return m.result;
}

/** The card's messages to its host, of method `method`. */
const sentByCard = (page, method) => page.evaluate((method) => window.fromCard.filter((m) => m.method === method), method);

/** A decision of one item at revision `rev`, and show_review's answer to the model for it. */
async function oneItem(rev, subject, requirement, via = server) {
  await callVia(via, "remember_decision", {
    artifact: artifact(rev), subject, disposition: "hold",
    basis: [{ requirement, source: "drawing", state: "unresolved", question: "which?" }],
  });
  return callVia(via, "show_review", { artifact: artifact(rev) });
}

test("card_resource_and_tool_links_are_named_as_the_specification_names_them_in_both_eras", async () => {
  // resources/read: one content, the card's URI, text/html;profile=mcp-app, the HTML as text,
  // and _meta.ui with the specification's member names only (csp with its four domain lists,
  // prefersBorder). tools/list: _meta.ui.resourceUri and visibility, and the flat
  // _meta["ui/resourceUri"] the specification's Tool type still names (deprecated) and the
  // official SDK's registerAppTool writes beside it, for hosts that read only that key.
  const fresh = new Server(server.db);
  try {
    for (const [era, via] of [["2025-11-25", server], ["2026-07-28", modern(fresh)]]) {
      const read = await via.send("resources/read", { uri: CARD_URI });
      assert.equal(read.error, undefined, `${era}: ${JSON.stringify(read.error)}`);
      assert.equal(read.result.contents.length, 1, era);
      const c = read.result.contents[0];
      assert.equal(c.uri, CARD_URI, era);
      assert.equal(c.mimeType, "text/html;profile=mcp-app", era);
      assert.equal(c.blob, undefined, era);
      assert.match(c.text, /^<!DOCTYPE html>/, era);
      assert.deepEqual(Object.keys(c._meta.ui).sort(), ["csp", "prefersBorder"], era);
      assert.deepEqual(c._meta.ui.csp, { connectDomains: [], resourceDomains: [], frameDomains: [], baseUriDomains: [] }, era);
      assert.equal(c._meta.ui.prefersBorder, true, era);
      const tools = (await via.send("tools/list", {})).result.tools;
      const linked = Object.fromEntries(tools.filter((t) => t._meta !== undefined).map((t) => [t.name, t._meta]));
      assert.deepEqual(linked, {
        show_review: { ui: { resourceUri: CARD_URI, visibility: ["model", "app"] }, "ui/resourceUri": CARD_URI },
        record_verdict: { ui: { resourceUri: CARD_URI, visibility: ["app"] }, "ui/resourceUri": CARD_URI },
      }, era);
    }
  } finally {
    fresh.close();
  }
});

test("card_round_trip_in_the_2026_07_28_era", async () => {
  // The host speaks the stateless revision to the server: each call the card makes is passed
  // on with the envelope (the extension declared in the request itself). The card gets the
  // summary, asks for the full review, and the click is recorded as the engineer's.
  const fresh = new Server(server.db);
  try {
    const via = modern(fresh);
    const rev = "sha256:" + "d1".repeat(32);
    const shown = await oneItem(rev, "modern era", "Counterbore 11 mm", via);
    assert.equal(shown.resultType, "complete");
    assert.equal(shown.structuredContent.detail, "summary");
    const { page, card } = await openCard({ context: { theme: "light" }, toolInput: { artifact: artifact(rev) }, result: shown, via });
    await card.getByRole("textbox", { name: "Reason for item 1: Counterbore 11 mm" }).fill("depth to be checked");
    await card.getByRole("button", { name: "Reject item 1: Counterbore 11 mm" }).click();
    await card.getByRole("status").getByText(/Recorded: rejected item 1/).waitFor();
    const calls = (await sentByCard(page, "tools/call")).map((m) => m.params.name);
    assert.deepEqual(calls, ["show_review", "record_verdict"]);
    const back = await callVia(via, "recall_decisions", { artifact: artifact(rev), subject: "modern era" });
    const v = back.structuredContent.decisions[0].basis[0].verdict;
    assert.deepEqual([v.judgement, v.via, v.author, v.reason], ["rejected", "app", AUTHOR, "depth to be checked"]);
    await page.close();
  } finally {
    fresh.close();
  }
});

test("card_does_not_say_recorded_when_the_host_answers_a_click_without_the_servers_record", async () => {
  // A host that answers the card's record_verdict itself (an empty result, null, a text of
  // its own) has not passed it on, or not said what the server answered: the card said
  // "Recorded: accepted item 1" all the same. It says the verdict may not be recorded, and
  // the engineer can click again.
  const rev = "sha256:" + "d2".repeat(32);
  const shown = await oneItem(rev, "unconfirmed", "Keyway 5 mm");
  for (const answer of [{ result: {} }, { result: null }, { result: { content: [{ type: "text", text: "ok" }] } },
    { result: { structuredContent: { decision: "x" } } }]) {
    const { page, card } = await openCard({ context: { theme: "light" }, toolInput: { artifact: artifact(rev) }, result: shown,
      host: { toolAnswers: { record_verdict: answer } } });
    const accept = card.getByRole("button", { name: "Accept item 1: Keyway 5 mm" });
    await accept.click();
    await card.getByRole("status").getByText(/may not be recorded/).waitFor();
    assert.doesNotMatch(await card.getByRole("status").textContent(), /Recorded/, JSON.stringify(answer));
    assert.equal(await accept.isEnabled(), true);
    await card.getByText("awaiting the engineer").first().waitFor();
    await page.close();
  }
  const back = await server.call("recall_decisions", { artifact: artifact(rev), subject: "unconfirmed" });
  assert.equal(back.structuredContent.decisions[0].basis[0].verdict, undefined);
});

test("card_keeps_keyboard_focus_on_the_button_after_a_click_that_was_not_recorded", async () => {
  // The row's buttons are disabled while a click is on its way, which takes the focus from
  // the one pressed; only a recorded click gave it back. A keyboard user whose click the host
  // refused, the server refused, or that changed under them was sent back to the top of the
  // card. The focus is back on the button pressed (the same item, shown again).
  const rev = "sha256:" + "d3".repeat(32);
  const shown = await oneItem(rev, "focus", "Dowel hole 6H7");
  const changed = "The decision changed since the card showed it: item 1 is now \"Dowel hole 6H7\". Nothing was written.";
  for (const answer of [{ error: { code: -32000, message: "tool calls from apps need approval" } },
    { result: { isError: true, content: [{ type: "text", text: "The database is busy: try again." }] } },
    { result: { isError: true, content: [{ type: "text", text: changed }] } }]) {
    const { page, card } = await openCard({ context: { theme: "light" }, toolInput: { artifact: artifact(rev) }, result: shown,
      host: { toolAnswers: { record_verdict: answer } } });
    const reject = card.getByRole("button", { name: "Reject item 1: Dowel hole 6H7" });
    await reject.focus();
    await page.keyboard.press("Enter");
    await card.getByRole("status").getByText(/need approval|database is busy|shown again below/).waitFor();
    await settle(page);
    const focused = await cardFrame(page).evaluate(() => document.activeElement && document.activeElement.getAttribute("aria-label"));
    assert.equal(focused, "Reject item 1: Dowel hole 6H7", JSON.stringify(answer));
    await page.close();
  }
});

test("card_handshake_answered_after_the_wait_takes_the_answer_and_drops_the_warning", async () => {
  // A host that answers ui/initialize after the card said it had not answered in 30 s: the
  // card takes the answer, reports its size after it, and the warning does not stay.
  const fast = "<script>(function () { var st = window.setTimeout; window.setTimeout = function (f, ms) { return st(f, (ms || 0) / 10); }; })();</script>";
  const { page, card } = await openCard({ context: { theme: "dark" }, html: cardHtml.replace("<head>", "<head>" + fast),
    host: { initDelay: 4500, ignoreBeforeInit: true }, heading: null });
  await card.getByRole("status").getByText(/has not answered in 30 seconds/).waitFor();
  await card.getByRole("heading", { name: /Review of bracket\.step/ }).waitFor({ timeout: 15000 });
  await card.getByRole("button", { name: "Accept item 1: Bore 12H7" }).waitFor();
  await settle(page);
  assert.doesNotMatch(await card.getByRole("status").textContent(), /has not answered/);
  assert.ok(isDark(await bodyBackground(page)));
  const log = await page.evaluate(() => window.fromCard.map((m) => m.method));
  assert.ok(log.lastIndexOf("ui/notifications/size-changed") > log.indexOf("ui/notifications/initialized"));
  await page.close();
});

test("card_handshake_refused_says_so_and_sends_no_initialized", async () => {
  // A host that answers ui/initialize with an error: the card says so, never claims the
  // handshake succeeded (no ui/notifications/initialized) and still tells its size.
  const page = await browser.newPage({ viewport: { width: 900, height: 1200 } });
  await page.setContent('<!DOCTYPE html><html lang="en"><head><title>refusing host</title></head><body>' +
    '<iframe id="card" sandbox="allow-scripts" title="card"></iframe><script>window.fromCard = [];' +
    'window.addEventListener("message", (e) => { const m = e.data; window.fromCard.push(m);' +
    ' if (m.method === "ui/initialize") e.source.postMessage({ jsonrpc: "2.0", id: m.id, error: { code: -32603, message: "apps are off <b>here</b>" } }, "*"); });' +
    '</script></body></html>');
  await page.evaluate((html) => { document.getElementById("card").srcdoc = html; }, cardHtml);
  const card = page.frameLocator("#card");
  await card.getByRole("status").getByText("The host refused the card: apps are off <b>here</b>").waitFor();
  await settle(page);
  const methods = await page.evaluate(() => window.fromCard.map((m) => m.method));
  assert.ok(!methods.includes("ui/notifications/initialized"), JSON.stringify(methods));
  assert.ok(methods.includes("ui/notifications/size-changed"), JSON.stringify(methods));
  await page.close();
});

test("card_takes_streamed_partial_input_without_acting_on_it", async () => {
  // tool-input-partial is best-effort, MUST NOT be relied on: the card asks for the review
  // of the complete tool-input only (partials naming another revision and subject first).
  const { page, card } = await openCard({ context: { theme: "light" }, toolInput: { artifact: artifact(REV), subject: SUBJECT },
    host: { partials: [{}, { artifact: { revision: "sha256:" } }, { artifact: artifact(OLD), subject: "bore tol" }] } });
  await card.getByRole("button", { name: "Accept item 1: Bore 12H7" }).waitFor();
  const calls = (await sentByCard(page, "tools/call")).map((m) => m.params);
  assert.deepEqual(calls, [{ name: "show_review", arguments: { detail: "full", artifact: artifact(REV), subject: SUBJECT } }]);
  await page.close();
});

test("card_says_a_cancelled_call_was_cancelled_and_no_longer_waits", async () => {
  // tool-cancelled instead of a result: the card said "The host cancelled the call" under a
  // subtitle still "Waiting for the review from the host." The reason is the host's text,
  // shown as text.
  const reason = "stopped by the user \u202e<b>x</b>";
  const { page, card } = await openCard({ context: { theme: "light" }, host: { cancelled: reason }, heading: null });
  await card.getByRole("status").getByText("The host cancelled the call: stopped by the user \\u{202e}<b>x</b>").waitFor();
  const text = await cardFrame(page).evaluate(() => document.body.innerText);
  assert.doesNotMatch(text, /Waiting for the review|Loading/, text);
  assert.equal(await cardFrame(page).evaluate(() => document.querySelectorAll("b").length), 0);
  await page.close();
});

test("card_given_a_failed_tool_result_says_why_and_no_longer_waits", async () => {
  // show_review's own answer an isError result (a revision refused, say): the card showed
  // its text under "Waiting for the review from the host."
  const failed = await server.send("tools/call", { name: "show_review", arguments: { artifact: { ...artifact(REV), revision: "sha256:1" } } });
  assert.equal(failed.result.isError, true, JSON.stringify(failed));
  const { page, card } = await openCard({ context: { theme: "light" }, result: failed.result, heading: null });
  await card.getByRole("status").getByText(failed.result.content[0].text.slice(0, 40), { exact: false }).waitFor();
  const text = await cardFrame(page).evaluate(() => document.body.innerText);
  assert.doesNotMatch(text, /Waiting for the review|Loading/, text);
  await page.close();
});

test("card_takes_messages_from_its_host_window_only", async () => {
  // A sibling frame of the host page, or the card's own window, posting a review or an answer
  // to the card's pending call: the card takes messages of window.parent only.
  const { page, card } = await openCard({ context: { theme: "light" }, host: { hangTools: ["record_verdict"] } });
  await card.getByRole("button", { name: "Accept item 1: Bore 12H7" }).click();
  // The click's call leaves the card after the click returns: waited for, not assumed.
  await page.waitForFunction(() => window.fromCard.some((m) => m.method === "tools/call" && m.params.name === "record_verdict"));
  const click = (await sentByCard(page, "tools/call")).find((m) => m.params.name === "record_verdict");
  const evil = { jsonrpc: "2.0", method: "ui/notifications/tool-result", params: { structuredContent: {
    revision: "sha256:" + "e".repeat(64), decisions: [{ id: "dec_evil", subject: "EVIL REVIEW", basis: [] }] } } };
  const spoof = { jsonrpc: "2.0", id: click.id, result: { structuredContent: { decision: { id: "dec_x", subject: "SPOOFED", basis: [] } } } };
  await page.evaluate(([evil, spoof]) => {
    const sib = document.createElement("iframe");
    sib.setAttribute("sandbox", "allow-scripts");
    sib.srcdoc = "<script>parent.frames[0].postMessage(" + JSON.stringify(evil) + ", '*');" +
      "parent.frames[0].postMessage(" + JSON.stringify(spoof) + ", '*');<\/script>";
    document.body.appendChild(sib);
  }, [evil, spoof]);
  await cardFrame(page).evaluate(([evil, spoof]) => { window.postMessage(evil, "*"); window.postMessage(spoof, "*"); }, [evil, spoof]);
  await page.waitForTimeout(500);
  const text = await cardFrame(page).evaluate(() => document.body.innerText);
  assert.doesNotMatch(text, /EVIL|SPOOFED|Recorded/, text);
  assert.match(text, /Recording/);
  await page.close();
});

test("card_answers_resource_teardown_and_sends_no_click_after_it", async () => {
  // ui/resource-teardown is answered with an empty result under its id; the card is going:
  // a click after it would go to a host that has let go of it, never answered.
  const { page, card } = await openCard({ context: { theme: "light" } });
  await page.evaluate(() => window.sendToCard({ id: 900, method: "ui/resource-teardown", params: { reason: "conversation closed" } }));
  await page.waitForFunction(() => window.fromCard.some((m) => m.id === 900));
  const answer = await page.evaluate(() => window.fromCard.find((m) => m.id === 900));
  assert.deepEqual(answer, { jsonrpc: "2.0", id: 900, result: {} });
  const accept = card.getByRole("button", { name: "Accept item 1: Bore 12H7" });
  assert.equal(await accept.isDisabled(), true);
  await accept.click({ force: true });
  await page.waitForTimeout(300);
  assert.equal((await sentByCard(page, "tools/call")).filter((m) => m.params.name === "record_verdict").length, 0);
  await page.close();
});

test("card_merges_host_context_changes_theme_variables_and_display_mode", async () => {
  // host-context-changed is a partial update merged with what the card had: the theme back
  // and forth, a style variable kept across an update that does not name it, a display mode
  // change and a font block (no request: the card declares no resource domain).
  const { page, requests } = await openCard({ context: { theme: "light", displayMode: "inline",
    styles: { variables: { "--color-background-primary": "rgb(1, 2, 3)" } } } });
  const frame = cardFrame(page);
  assert.equal(await bodyBackground(page), "rgb(1, 2, 3)");
  const change = (params) => page.evaluate((p) => window.sendToCard({ method: "ui/notifications/host-context-changed", params: p }), params);
  await change({ theme: "dark", displayMode: "fullscreen", styles: { variables: { "--color-text-primary": "rgb(250, 250, 250)" },
    css: { fonts: "@import url('https://fonts.example.com/x.css');" } } });
  await frame.waitForFunction(() => document.documentElement.getAttribute("data-theme") === "dark");
  assert.equal(await bodyBackground(page), "rgb(1, 2, 3)");
  assert.equal(await frame.evaluate(() => getComputedStyle(document.body).color), "rgb(250, 250, 250)");
  await change({ theme: "light" });
  await frame.waitForFunction(() => document.documentElement.getAttribute("data-theme") === "light");
  assert.equal(await frame.evaluate(() => getComputedStyle(document.body).color), "rgb(250, 250, 250)");
  assert.deepEqual(requests.filter((u) => !/^(about:|data:)/.test(u)), []);
  await page.close();
});

test("card_shows_hostile_file_names_error_texts_and_cut_labels_as_text", async () => {
  // A file name from the artifact's URI (percent-escaped bidi override and markup), the
  // server's refusal text, and the accessible names of the buttons, cut at 80 characters: a
  // cut through a character outside the BMP (a tag character) left half of it, a lone
  // surrogate, in the name a screen reader reads.
  const rev = "sha256:" + "d4".repeat(32);
  const uri = "file:///w/%E2%80%AEpets.drab%3Cimg%20src%3Dx%20onerror%3Dparent.postMessage('pwned','*')%3E.step";
  const requirement = "a".repeat(79) + "\u{e0061}b";
  await server.call("remember_decision", { artifact: { ...artifact(rev), uri }, subject: "names", disposition: "hold",
    basis: [{ requirement, source: "drawing", state: "satisfied" }] });
  const shown = await server.call("show_review", { artifact: { ...artifact(rev), uri } });
  const refusal = "Refused: <b>no</b> \u202ereversed \u200b";
  const { page, card } = await openCard({ context: { theme: "light" }, toolInput: { artifact: { ...artifact(rev), uri } }, result: shown,
    heading: /^Review of \\u\{202e\}pets\.drab<img/, host: { toolAnswers: { record_verdict: { result: { isError: true, content: [{ type: "text", text: refusal }] } } } } });
  const frame = cardFrame(page);
  assert.equal(await frame.evaluate(() => document.querySelector("h1").textContent),
    "Review of \\u{202e}pets.drab<img src=x onerror=parent.postMessage('pwned','*')>.step");
  const accept = card.getByRole("button", { name: /^Accept item 1: a{79}/ });
  await accept.click();
  await card.getByRole("status").getByText("Refused: <b>no</b> \\u{202e}reversed \\u{200b}").waitFor();
  assert.equal(await frame.evaluate(() => document.querySelectorAll("img, b").length), 0);
  assert.ok(!(await page.evaluate(() => window.fromCard)).includes("pwned"));
  const labels = await frame.evaluate(() => Array.from(document.querySelectorAll("[aria-label], label")).map((e) => e.getAttribute("aria-label") || e.textContent));
  for (const l of labels) {
    assert.doesNotMatch(l, /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/, JSON.stringify(l));
    assert.doesNotMatch(l, /[\u{e0000}-\u{e007f}]/u, JSON.stringify(l));
  }
  await page.close();
});

test("card_is_usable_from_the_keyboard_alone_with_a_name_on_every_control", async () => {
  // Tab from the top of the card: every control it reaches has an accessible name; the
  // reason, Accept and Reject of an item follow one another; Space on Reject records it with
  // the reason typed, and the focus stays on that Reject.
  const rev = "sha256:" + "d5".repeat(32);
  const shown = await oneItem(rev, "keyboard", "Spot face 20 mm");
  const { page, card } = await openCard({ context: { theme: "light" }, toolInput: { artifact: artifact(rev) }, result: shown });
  await card.getByRole("button", { name: "Accept item 1: Spot face 20 mm" }).waitFor();
  const frame = cardFrame(page);
  await frame.evaluate(() => document.activeElement && document.activeElement.blur());
  await page.locator("#card").focus();
  const names = [];
  for (let i = 0; i < 6; i++) {
    await page.keyboard.press("Tab");
    const n = await frame.evaluate(() => {
      const e = document.activeElement;
      if (!e || e === document.body) return null;
      return e.getAttribute("aria-label") || (e.labels && e.labels[0] && e.labels[0].textContent) || e.textContent;
    });
    if (n === null) break;
    names.push(n);
  }
  assert.deepEqual(names.slice(0, 3), ["Reason for item 1: Spot face 20 mm", "Accept item 1: Spot face 20 mm", "Reject item 1: Spot face 20 mm"]);
  await frame.evaluate(() => document.activeElement && document.activeElement.blur());
  await page.locator("#card").focus();
  await page.keyboard.press("Tab");
  await page.keyboard.type("spot face too shallow");
  await page.keyboard.press("Tab");
  await page.keyboard.press("Tab");
  await page.keyboard.press(" ");
  await card.getByRole("status").getByText(/Recorded: rejected item 1/).waitFor();
  assert.equal(await frame.evaluate(() => document.activeElement.getAttribute("aria-label")), "Reject item 1: Spot face 20 mm");
  const back = await server.call("recall_decisions", { artifact: artifact(rev), subject: "keyboard" });
  assert.equal(back.structuredContent.decisions[0].basis[0].verdict.reason, "spot face too shallow");
  await page.close();
});

test("card_keeps_the_reasons_typed_in_other_items_when_it_shows_a_recorded_verdict", async () => {
  // Regression: every render rebuilt the card from the review, so a verdict recorded on item
  // 1 (or the full review arriving) emptied the reason the engineer had typed for item 2,
  // whose Reject then recorded no reason. The text stays, and the focus stays in it.
  const rev = "sha256:" + "d7".repeat(32);
  await server.call("remember_decision", {
    artifact: artifact(rev), subject: "typed", disposition: "hold",
    basis: [{ requirement: "Bore 10 H7", source: "drawing", state: "unresolved", question: "which?" },
            { requirement: "Wall 2 mm", source: "drawing", state: "unresolved", question: "which?" }],
  });
  const shown = await server.call("show_review", { artifact: artifact(rev) });
  const { page, card } = await openCard({ context: { theme: "light" }, toolInput: { artifact: artifact(rev) }, result: shown });
  await card.getByRole("button", { name: "Accept item 1: Bore 10 H7" }).waitFor();
  const second = card.getByRole("textbox", { name: "Reason for item 2: Wall 2 mm" });
  await second.fill("wall measured 1.8 mm");
  await card.getByRole("button", { name: "Accept item 1: Bore 10 H7" }).click();
  await card.getByRole("status").getByText(/Recorded: accepted item 1/).waitFor();
  assert.equal(await second.inputValue(), "wall measured 1.8 mm");
  // The host sends the review again while the engineer types in item 2: the card is built
  // anew (new inputs), the text and the focus stay in the box typed in.
  await second.focus();
  await page.keyboard.type(", twice");
  const frame = cardFrame(page);
  await frame.evaluate(() => { document.activeElement.builtBefore = true; });
  await page.evaluate((result) => window.sendToCard({ method: "ui/notifications/tool-result", params: result }), shown);
  await frame.waitForFunction(() => {
    const e = document.querySelector("input[data-typed]");
    return e && !e.builtBefore;
  });
  assert.equal(await second.inputValue(), "wall measured 1.8 mm, twice");
  assert.equal(await frame.evaluate(() => document.activeElement.getAttribute("aria-label") ||
    document.activeElement.id), await second.evaluate((e) => e.id));
  await card.getByRole("button", { name: "Reject item 2: Wall 2 mm" }).click();
  await card.getByRole("status").getByText(/Recorded: rejected item 2/).waitFor();
  const back = await server.call("recall_decisions", { artifact: artifact(rev), subject: "typed", detail: "full" });
  assert.equal(back.structuredContent.decisions[0].basis[1].verdict.reason, "wall measured 1.8 mm, twice");
  await page.close();
});

test("card_of_the_largest_valid_decision_renders_within_its_bounds", async () => {
  // 1,000 basis items (remember_decision's maximum), each with long fields: the card gets
  // the full review within the answer bound, renders it in well under a second or two, says
  // how much was left out, and its first and last items shown can be judged.
  const rev = "sha256:" + "d6".repeat(32);
  const long = (c, n) => c.repeat(n);
  const basis = Array.from({ length: 1000 }, (_, i) => ({
    requirement: `Req ${i} ` + long("r", 900), source: "drawing", sourceDetail: long("s", 200), state: i % 2 ? "unresolved" : "satisfied",
    evidence: long("e", 2000), question: i % 2 ? long("q", 1000) : undefined, faces: Array.from({ length: 20 }, (_, j) => `face:${i}-${j}`),
  }));
  await server.call("remember_decision", { artifact: artifact(rev), subject: long("S", 1000), disposition: long("D", 200),
    summary: long("m", 60000), basis });
  let t = Date.now();
  const shown = await server.call("show_review", { artifact: artifact(rev) });
  const summaryMs = Date.now() - t;
  t = Date.now();
  const full = await server.call("show_review", { artifact: artifact(rev), detail: "full" });
  const fullMs = Date.now() - t;
  console.log(`largest decision: show_review ${summaryMs} ms (summary), ${fullMs} ms (full)`);
  const bytes = Buffer.byteLength(JSON.stringify(full), "utf8");
  // The card's own time: from the summary given to the full review shown (the host answers
  // the card's show_review with the answer the server gave above).
  const { page, card } = await openCard({ context: { theme: "light" }, toolInput: { artifact: artifact(rev) }, result: shown,
    host: { toolAnswers: { show_review: { result: full } } } });
  const buttons = card.getByRole("button", { name: /^Accept item \d+: Req/ });
  await buttons.first().waitFor();
  const ms = await cardFrame(page).evaluate(() => Math.round(performance.now()));
  const n = await buttons.count();
  console.log(`largest decision: full answer ${bytes} bytes, ${n} items with buttons, shown in ${ms} ms`);
  assert.ok(bytes < 40000, `${bytes}`);
  assert.ok(n >= 1, `${n}`);
  assert.ok(ms < 3000, `${ms} ms`);
  // The basis was cut to the items that fit: the card says how many are not shown, and that
  // its counts and open questions are of the items shown (it said "5 awaiting the engineer"
  // and listed 2 open questions of a decision with 1,000 items, 500 of them open).
  const cut = 1000 - n;
  await card.getByText(`${cut} more basis items are not shown here`, { exact: false }).waitFor();
  await card.getByText(new RegExp(`^Verdicts on the ${n} items shown: 0 accepted`)).waitFor();
  await card.getByText(`Of the items shown; ${cut} more are not.`).waitFor();
  await page.evaluate(() => { window.hostState.toolAnswers = {}; });
  await buttons.last().click();
  await card.getByRole("status").getByText(/Recorded: accepted item \d+/).waitFor();
  await page.close();
});
