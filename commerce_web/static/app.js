// Commerce in the browser: plain JavaScript, no build step.  The server sends only what the
// human's seat knows (R11); this page draws it and sends the human's clicks as action texts.
"use strict";

const $ = (id) => document.getElementById(id);
const SUITS = { C: "\u2663", D: "\u2666", H: "\u2665", S: "\u2660" };
const CARD_VERBS = ["ready_money", "offer", "give", "exchange"];
// Every word a player reads comes from the server, in the guide's words (commerce_env/guide.py):
// the buttons' names (info.action_names), the variants' titles, the prompt, the moves and the results.
const verbName = (verb) => info.action_names[verb] || verb;
const title = (variant) => (info.variants[variant] || {}).title || variant;

let info = null;          // variants, options, agents, models
let matchId = null;       // the unguessable id of this browser's match
let settings = null;      // the last match's settings, for "play again"
let state = null;         // the last state the server sent
let showingShowdown = false;
let selected = { hand: null, table: null };
let replay = null;        // {scenes, lines, index}

async function api(method, url, body) {
  const response = await fetch(url, {
    method, headers: body ? { "Content-Type": "application/json" } : {},
    body: body ? JSON.stringify(body) : undefined,
  });
  const text = await response.text();
  let data = null;
  try { data = JSON.parse(text); } catch (error) { data = null; }
  if (!response.ok || data === null) throw new Error(clip((data && data.error) || text || `${response.status}`, 1000));
  return data;
}

// A text as a message quotes it: at most ``limit`` characters, saying how long it was.
function clip(text, limit = 100) {
  return text.length <= limit ? text : `${text.slice(0, limit - 20)}\u2026 (${text.length} characters)`;
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

// The server waits for its agents only so long: while they think ("thinking": true), show the
// moves so far and ask again until the human's turn.
async function untilMyTurn(current) {
  while (current.thinking) {
    state = current;
    showingShowdown = false;
    renderState();
    await sleep(300);
    current = await api("GET", `/api/matches/${matchId}`);
  }
  return current;
}

function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (key === "class") node.className = value;
    else if (key === "text") node.textContent = value;
    else if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
    else node.setAttribute(key, value);
  }
  for (const child of children) if (child) node.append(child);
  return node;
}

function cardNode(card, options = {}) {
  if (card === null) return el("div", { class: "card back", title: "face down" });
  const rank = card.slice(0, -1), suit = card.slice(-1);
  const node = el("div", { class: "card" + ("DH".includes(suit) ? " red" : ""), "data-card": card, title: card },
    el("span", { class: "rank", text: rank }), el("span", { class: "suit", text: SUITS[suit] }));
  if (options.onclick) { node.classList.add("clickable"); node.addEventListener("click", options.onclick); }
  if (options.selected) node.classList.add("selected");
  return node;
}

// ------------------------------------------------------------------ the table
function drawScene(container, scene, interactive) {
  container.replaceChildren();
  const n = scene.seats.length;
  container.classList.toggle("crowded", n > 6);  // smaller seats around a bigger table
  container.classList.toggle("very-crowded", n > 9);
  const bottom = scene.viewer === null ? 0 : scene.viewer;
  for (const seat of scene.seats) {
    const k = (seat.seat - bottom + n) % n;
    const angle = Math.PI / 2 + (2 * Math.PI * k) / n;  // play passes left: clockwise on screen (R3.1)
    const node = el("div", { class: "seat", id: `seat-${seat.seat}`, "data-seat": seat.seat });
    node.style.left = `${50 + 40 * Math.cos(angle)}%`;
    node.style.top = `${50 + 34 * Math.sin(angle)}%`;
    node.style.order = String(k === 0 ? n + 1 : k);  // a narrow page stacks the seats: the viewer's last
    if (k === 0) node.classList.add("bottom");
    if (seat.to_act && !scene.showdown) node.classList.add("to-act");
    if (seat.winner) node.classList.add("winner");
    if (seat.out) node.classList.add("out");
    // The number, the name and the dealer's badge side by side: the badge never covers the name.
    node.append(el("div", { class: "name", title: seat.name },
      el("span", { class: "seat-number", text: String(seat.seat), title: `seat ${seat.seat}` }),
      el("span", { class: "seat-name", text: shortName(seat) }),
      seat.dealer ? el("span", { class: "dealer", text: "D", title: "the dealer" }) : null));
    const balance = [scene.counters_label === "lives"
      ? `${seat.counters} ${Math.abs(seat.counters) === 1 ? "life" : "lives"}` : `counters ${seat.counters}`];
    if (seat.money !== null) balance.push(`money ${seat.money}`);
    node.append(el("div", { class: "balance", text: balance.join(" \u00b7 ") }));
    const cards = el("div", { class: "cards" + (seat.seat === scene.viewer ? " my-hand" : "") });
    for (const card of seat.cards) {
      const mine = interactive && seat.seat === scene.viewer && card !== null;
      cards.append(cardNode(card, mine ? {
        onclick: () => select("hand", card), selected: selected.hand === card,
      } : {}));
    }
    node.append(cards);
    let note = seat.note, cls = "note";
    if (scene.showdown) {
      note += seat.change ? `  ${seat.change > 0 ? "+" : ""}${seat.change}` : "";
      if (seat.winner) { note = "WINS  " + note; cls += " win"; } else if (seat.change < 0) cls += " loss";
    }
    node.append(el("div", { class: cls, text: note }));
    container.append(node);
  }
  const centre = el("div", { class: "centre", style: `order: ${n}` });
  const heading = $(`${container.id}-title`);
  if (heading) {
    heading.textContent = `${title(scene.variant)} \u00b7 deal ${scene.deal}` +
      (scene.showdown || scene.over ? "" : `, round ${scene.round}`);
  }
  if (scene.table.length) {
    centre.append(el("div", { class: "label", text: scene.table_name }));
    const table = el("div", { class: "cards", id: "table-cards" });
    for (const card of scene.table) {
      table.append(cardNode(card, interactive ? {
        onclick: () => select("table", card), selected: selected.table === card,
      } : {}));
    }
    centre.append(table);
  }
  const facts = [];
  if (scene.counters_label !== "counters" || scene.pool) facts.push(`pool ${scene.pool}`);
  if (scene.stock !== null) facts.push(`stock ${scene.stock}`);
  centre.append(el("div", { class: "info", text: facts.join("    ") }));
  if (scene.showdown) centre.append(el("div", { class: "showdown", text: "SHOWDOWN" }));
  container.append(centre);
  // The last action and the results go below the table, where no seat can cover them.
  const status = $(`${container.id}-status`);
  status.replaceChildren();
  if (scene.last_action) status.append(el("div", { text: `Last move: ${scene.last_action}.` }));
  for (const line of [scene.result, scene.match_result]) {
    if (line) status.append(el("div", { class: "result", text: line }));
  }
}

// A seat's name without the seat number the server adds ("model widow (2)"): the label shows it apart.
function shortName(seat) {
  const suffix = ` (${seat.seat})`;
  return seat.name.endsWith(suffix) ? seat.name.slice(0, -suffix.length) : seat.name;
}

function select(where, card) {
  selected[where] = selected[where] === card ? null : card;
  renderState();
}

// ------------------------------------------------------------------- playing
function renderState() {
  const scene = showingShowdown ? state.showdown : state.scene;
  const interactive = state.my_turn && !showingShowdown;
  drawScene($("table"), scene, interactive);
  const actions = $("actions");
  actions.replaceChildren();
  $("hand-hint").textContent = "";
  if (showingShowdown && !state.over) {
    $("prompt").textContent = state.showdown.result;
    actions.append(el("button", { id: "continue-deal", type: "button", text: `Continue to deal ${state.scene.deal}`,
      onclick: () => { showingShowdown = false; renderState(); } }));
  } else if (state.over) {
    $("prompt").textContent = "The match is over.";
  } else if (state.thinking || state.error) {
    $("prompt").textContent = state.error || "The other players are playing\u2026";
  } else {
    $("prompt").textContent = state.scene.prompt;
    const verbs = [...new Set(state.legal.map((a) => a.verb))];
    for (const verb of verbs) {
      const needsCard = CARD_VERBS.includes(verb);
      actions.append(el("button", {
        type: "button", class: needsCard ? "card-verb" : "", "data-verb": verb,
        text: verbName(verb), title: info.actions[verb] || "", onclick: () => clickVerb(verb),
      }));
    }
    if (verbs.some((v) => CARD_VERBS.includes(v))) {
      $("hand-hint").textContent = verbs.includes("exchange")
        ? `Click one of your cards and a ${state.scene.table_name} card, then exchange.`
        : "Click one of your cards, then the action.";
    }
  }
  $("help-rules").textContent = info.variants[state.scene.variant].help;
  $("help-actions").replaceChildren(...[...new Set(state.legal.map((a) => a.verb))].map((verb) =>
    el("li", {}, el("b", { text: verbName(verb) }), ` \u2014 ${info.actions[verb] || ""}`)));
  $("intro").textContent = state.intro || "";
  const since = $("since");
  since.replaceChildren(...state.since.map((line) => el("li", { text: line })));
  since.scrollTop = since.scrollHeight;
  const deals = $("deals").querySelector("tbody");
  deals.replaceChildren(...state.deals.map((d) => el("tr", {},
    el("td", { text: String(d.deal) }), el("td", { text: d.winners.join(", ") }), el("td", { text: d.with }),
    el("td", { text: Object.entries(d.changes).filter(([, c]) => c).map(([name, c]) =>
      `${name} ${c > 0 ? "+" : ""}${c}`).join(", ") }))));
  const result = $("result");
  result.textContent = state.over ? state.scene.match_result || "Match over." : "";
  $("again").classList.toggle("hidden", !state.over);
  document.body.dataset.actions = String(state.actions);
}

function clickVerb(verb) {
  let text = verb;
  if (CARD_VERBS.includes(verb)) {
    // An incomplete choice goes as the verb alone: the server says which cards to choose.
    const complete = selected.hand && (verb !== "exchange" || selected.table);
    text = complete ? [verb, selected.hand, verb === "exchange" ? selected.table : null].filter(Boolean).join(" ")
      : verb;
  }
  send(text);
}

async function send(text) {
  $("error").textContent = "";
  document.body.dataset.busy = "yes";
  try {
    state = await untilMyTurn(await api("POST", `/api/matches/${matchId}/actions`, { action: text }));
    selected = { hand: null, table: null };
    showingShowdown = state.showdown !== null;  // a deal ended since the last action: show its hands first
    renderState();
  } catch (error) {
    $("error").textContent = error.message;
  } finally {
    document.body.dataset.busy = "no";
  }
}

async function start(event) {
  if (event) event.preventDefault();
  $("error").textContent = "";
  if (fitOpponents(true, false)) return;
  const options = {};
  for (const input of $("options").querySelectorAll("input")) {
    if (input.value.trim()) options[input.name] = input.value.trim();
  }
  const seed = $("seed").value.trim();
  settings = {
    variant: $("variant").value, players: Number($("players").value), seat: Number($("seat").value),
    opponents: splitOpponents($("opponents").value), options,
    seed: seed ? Number(seed) : null,
  };
  await begin(settings);
}

// "search(worlds=96, margin=2), greedy": split at the commas outside brackets.
function splitOpponents(text) {
  const pieces = [];
  let depth = 0, piece = "";
  for (const char of text) {
    if (char === "(") depth += 1;
    if (char === ")") depth -= 1;
    if (char === "," && depth === 0) { pieces.push(piece); piece = ""; } else piece += char;
  }
  pieces.push(piece);
  return pieces.map((s) => s.trim()).filter(Boolean);
}

async function begin(chosen) {
  document.body.dataset.busy = "yes";
  $("setup-error").textContent = "";
  try {
    const data = await api("POST", "/api/matches", chosen);
    matchId = data.id;
    document.body.dataset.match = matchId;
    $("setup").classList.add("hidden");
    $("game").classList.remove("hidden");
    state = await untilMyTurn(data.state);
    selected = { hand: null, table: null };
    showingShowdown = state.showdown !== null;
    renderState();
  } catch (error) {
    $("setup-error").textContent = error.message;
  } finally {
    document.body.dataset.busy = "no";
  }
}

function fillOptions() {
  const variant = $("variant").value;
  const table = $("options");
  table.replaceChildren();
  for (const [name, value] of Object.entries(info.variants[variant].options)) {
    const shown = Array.isArray(value) ? `[${value.join(", ")}]` : String(value);
    table.append(el("tr", {}, el("td", { text: name }),
      el("td", {}, el("input", { name, id: `option-${name}`, placeholder: shown,
        title: info.variants[variant].option_values[name] }))));
  }
}

// Opponents come from the server's list: built-in agents (arguments in brackets, e.g.
// search(worlds=96)) and the models of its models folder, by name (model:widow).  A model plays
// one variant with one number of players: only those that fit are listed.
function listOpponents() {
  const variant = $("variant").value, players = Number($("players").value);
  const own = info.models.filter((m) => m.variant === variant);
  const fit = own.filter((m) => m.num_players === players);
  $("agent-list").replaceChildren(...info.agents.map((name) => el("option", { value: name })),
    ...fit.map((m) => el("option", { value: m.name, label: `model, ${m.num_players} players` })));
  $("agent-names").textContent = [...info.agents, ...fit.map((m) => m.name)].join(", ");
  const others = own.filter((m) => !fit.includes(m)).map((m) => `${m.name} (${m.num_players} players)`);
  $("other-models").textContent = others.length ? ` For other player counts: ${others.join(", ")}.` : "";
  $("seat").max = String(Math.max(0, players - 1));
}

// A model chosen as an opponent brings its player count (when ``adjust``); what cannot be is said
// plainly (at once when ``loud``, else once the box is left).  Returns the problem, if any.
function fitOpponents(loud, adjust) {
  const variant = $("variant").value;
  const names = splitOpponents($("opponents").value).filter((name) => name.startsWith("model:"));
  const models = names.map((name) => info.models.find((m) => m.name === name) || { name });
  const unknown = models.find((m) => !m.variant), foreign = models.find((m) => m.variant && m.variant !== variant);
  const counts = [...new Set(models.map((m) => m.num_players))];
  let problem = "";
  if (unknown) {
    const listed = info.models.map((m) => m.name).join(", ") || "none";
    problem = `${clip(unknown.name)} is not a model of this server (its models: ${listed}).`;
  } else if (foreign) {
    problem = `${foreign.name} plays ${title(foreign.variant)}, not ${title(variant)}: choose its variant first.`;
  } else if (counts.length > 1) {
    problem = models.map((m) => `${m.name} plays with ${m.num_players} players`).join(", ") +
      ": they cannot sit at one table.";
  } else if (counts.length === 1 && Number($("players").value) !== counts[0]) {
    if (adjust) {
      $("players").value = String(counts[0]);
      listOpponents();
    } else problem = `${names[0]} plays with ${counts[0]} players, not ${clip($("players").value)}.`;
  }
  if (loud || !problem) $("setup-error").textContent = problem;
  return problem;
}

// ------------------------------------------------------------------- replays
async function openReplay() {
  $("replay-error").textContent = "";
  replay = null;  // a failed load leaves no old replay on screen
  $("replay-view").classList.add("hidden");
  $("replay-table").replaceChildren();
  $("replay-table-status").replaceChildren();
  document.body.dataset.busy = "yes";
  const file = $("replay-file").files[0];
  if (!file) {
    $("replay-error").textContent = "Choose a replay file first.";
    document.body.dataset.busy = "no";
    return;
  }
  try {
    const text = await file.text();
    const data = await api("POST", "/api/replays", { text, game: Number($("replay-game").value) });
    replay = { ...data, index: 0 };
    $("replay-slider").max = String(data.scenes.length - 1);
    $("replay-view").classList.remove("hidden");
    showReplay(0);
  } catch (error) {
    $("replay-error").textContent = error.message;
  } finally {
    document.body.dataset.busy = "no";
  }
}

function showReplay(index) {
  replay.index = Math.max(0, Math.min(replay.scenes.length - 1, index));
  drawScene($("replay-table"), replay.scenes[replay.index], false);
  $("replay-slider").value = String(replay.index);
  $("replay-position").textContent = `step ${replay.index + 1} of ${replay.scenes.length} (game ${replay.game} of ${replay.games})`;
}

function showTab(name) {
  $("tab-play").classList.toggle("active", name === "play");
  $("tab-replay").classList.toggle("active", name === "replay");
  $("replay").classList.toggle("hidden", name !== "replay");
  $("setup").classList.toggle("hidden", name !== "play" || matchId !== null);
  $("game").classList.toggle("hidden", name !== "play" || matchId === null);
}

async function init() {
  info = await api("GET", "/api/variants");
  for (const variant of Object.keys(info.variants)) {
    $("variant").append(el("option", { value: variant, text: title(variant) }));
  }
  fillOptions();
  listOpponents();
  $("variant").addEventListener("change", () => { fillOptions(); listOpponents(); fitOpponents(true, true); });
  $("players").addEventListener("input", listOpponents);
  // A name picked from the list is chosen at once; a typed one once the box is left.
  $("opponents").addEventListener("input", (e) => fitOpponents(false, e.inputType === "insertReplacementText"));
  $("opponents").addEventListener("change", () => fitOpponents(true, true));
  $("setup-form").addEventListener("submit", start);
  $("again").addEventListener("click", () => begin({ ...settings, seed: null }));
  $("new-setup").addEventListener("click", () => { matchId = null; showTab("play"); });
  $("tab-play").addEventListener("click", () => showTab("play"));
  $("tab-replay").addEventListener("click", () => showTab("replay"));
  $("replay-load").addEventListener("click", openReplay);
  $("replay-first").addEventListener("click", () => showReplay(0));
  $("replay-prev").addEventListener("click", () => showReplay(replay.index - 1));
  $("replay-next").addEventListener("click", () => showReplay(replay.index + 1));
  $("replay-last").addEventListener("click", () => showReplay(replay.scenes.length - 1));
  $("replay-slider").addEventListener("input", (e) => showReplay(Number(e.target.value)));
  document.body.dataset.ready = "yes";
}

init().catch((error) => { document.body.prepend(el("p", { class: "error", text: String(error) })); });
