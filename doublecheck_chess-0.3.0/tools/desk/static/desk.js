"use strict";
// The rules desk page.  It keeps only the line being looked at (variant, start
// FEN, the moves in coordinates, how many of them the board shows) and asks the
// server for everything else: legal moves, the board picture, the status, the
// explanations.  The server remembers nothing between requests (docs/desk.md).

const $ = (id) => document.getElementById(id);
const SVG_NS = "http://www.w3.org/2000/svg";
const PIECES = {q: "Queen", r: "Rook", b: "Bishop", n: "Knight"};

const desk = {
  variant: "chess",
  fen: null,        // the start position (null: the variant's own)
  line: [],         // the moves of the line, in coordinates
  at: 0,            // how many of them the board shows
  view: null,       // the server's answer for that moment
  selected: null,   // {from: "b3"} or {drop: "K"}
  games: [],        // the games of the last checked record
  replay: null,     // the index of the game being stepped through, while the line is its
  attempt: false,   // the board shows an attempted move rather than the position
  busy: 0,
};

class DeskError extends Error {
  constructor(code, message) {
    super(`${code}: ${message}`);
    this.code = code;
  }
}

// ------------------------------------------------------------------ server

function setBusy(step) {
  desk.busy += step;
  document.body.dataset.busy = desk.busy > 0 ? "yes" : "no";
}

async function call(op, body) {
  const init = body === undefined ? {} : {
    method: "POST",
    headers: {"Content-Type": "application/json"},
    body: JSON.stringify(body),
  };
  setBusy(1);
  try {
    let response;
    try {
      response = await fetch(op === "hello" ? "/api/hello" : `/api/${op}`, init);
    } catch (e) {
      throw new DeskError("no-server", "the desk's server does not answer; is `doublecheck desk` still running?");
    }
    let answer;
    try {
      answer = await response.json();
    } catch (e) {
      throw new DeskError("bad-answer", `the server answered ${response.status} without JSON`);
    }
    if (!answer.ok) {
      throw new DeskError(answer.error.code, answer.error.message);
    }
    return answer;
  } finally {
    setBusy(-1);
  }
}

function lineOf(state) {
  const body = {variant: state.variant, moves: state.line};
  if (state.fen !== null) body.fen = state.fen;
  return body;
}

// Show a moment of a line; the page's state changes only when the server accepts it.
async function show(changes) {
  const next = Object.assign({}, desk, changes);
  try {
    const view = await call("position", Object.assign(lineOf(next), {at: next.at}));
    Object.assign(desk, changes);
    desk.view = view;
    desk.selected = null;
    clearMessage();
    render();
    return true;
  } catch (e) {
    showError(e);
    return false;
  }
}

function play(move) {
  const line = desk.line.slice(0, desk.at).concat([move]);
  desk.replay = null;       // the line leaves the record: its illegal turn no longer applies
  $("double").checked = false;
  return show({line, at: line.length});
}

// ---------------------------------------------------------------- drawing

// The pictures are drawn at 48 pixels a square; an 8-file board gets more room.
function drawBoard(svg) {
  const board = $("board");
  board.innerHTML = svg;
  const picture = board.querySelector("svg");
  const width = +picture.getAttribute("width"), height = +picture.getAttribute("height");
  const scale = Math.max(1, Math.min(1.3, 820 / width));
  picture.setAttribute("width", Math.round(width * scale));
  picture.setAttribute("height", Math.round(height * scale));
}

function render() {
  const view = desk.view;
  desk.attempt = false;
  drawBoard(view.svg);
  $("fen").value = view.fen;
  $("variant").value = view.variant;
  renderStatus(view);
  renderTurn(view);
  renderList($("state"), view.state.concat(view.notes));
  renderLine(view);
  renderChoices(view);
  renderSteps(view);
  hideExplanation();
  const game = currentGame();
  if (game && game.illegal && view.at === view.length) {
    showExplanation(Object.assign({}, game.illegal.explanation,
      {svg: game.illegal.svg, rule_statements: game.illegal.rule_statements}),
      `Illegal turn ${game.illegal.turn} (${game.illegal.side}, line ${game.illegal.line}): ${game.illegal.text}`);
  }
}

function renderStatus(view) {
  const box = $("status");
  box.textContent = view.status_text;
  box.classList.toggle("over", view.status.over);
  if (view.in_check && !view.status.over) {
    const check = document.createElement("span");
    check.className = "check";
    check.textContent = ` ${capital(view.to_move)} is in check.`;
    box.appendChild(check);
  }
}

function renderTurn(view) {
  const box = $("turn");
  box.textContent = "";
  const turn = view.line.find((t) => t.from < view.at && view.at <= t.upto);
  if (!turn) {
    box.textContent = `${capital(view.to_move)} to move.`;
    return;
  }
  const moves = turn.san.split(",").filter((m) => m !== "");
  const label = `${turn.number}${turn.side === "white" ? "." : "..."}`;
  const halves = moves.map((m, i) => `${ordinal(i + 1)} move ${m}`).join(", ");
  if (view.mid_turn) {
    box.textContent = `${capital(turn.side)}'s turn ${label} is under way: ${halves}; ` +
      `the turn goes on (${view.moves.length} possible next moves).`;
  } else {
    const parts = moves.length > 1 ? ` (${halves})` : "";
    box.textContent = `Last turn: ${label} ${turn.san}${parts}. ${capital(view.to_move)} to move.`;
  }
}

function renderList(list, lines) {
  list.textContent = "";
  for (const text of lines) {
    const item = document.createElement("li");
    item.textContent = text;
    list.appendChild(item);
  }
}

function renderLine(view) {
  const list = $("line");
  list.textContent = "";
  for (const turn of view.line) {
    const item = document.createElement("li");
    if (!turn.complete) item.className = "open";
    const button = document.createElement("button");
    button.type = "button";
    button.dataset.upto = turn.upto;
    if (turn.from < view.at && view.at <= turn.upto) button.className = "current";
    const number = document.createElement("span");
    number.className = "number";
    number.textContent = `${turn.number}${turn.side === "white" ? "." : "..."} `;
    button.append(number, turn.san);
    button.title = turn.moves.join(",");
    button.addEventListener("click", () => show({at: turn.upto}));
    item.appendChild(button);
    list.appendChild(item);
  }
}

function renderChoices(view) {
  const opens = view.legal.some((m) => m.opens_double);
  $("double-choice").hidden = !opens;
  if (!opens) $("double").checked = false;
  const hand = $("hand");
  hand.textContent = "";
  const drops = [...new Set(view.legal.filter((m) => m.drop).map((m) => m.drop))];
  hand.hidden = drops.length === 0;
  if (drops.length) {
    hand.append(`${capital(view.to_move)} has in hand: `);
    for (const letter of drops) {
      const button = document.createElement("button");
      button.type = "button";
      button.dataset.drop = letter;
      button.textContent = `${letter}@ (drop)`;
      button.title = "click, then an empty square to drop it on";
      button.addEventListener("click", () => select({drop: letter}));
      hand.appendChild(button);
    }
  }
  $("promotion").hidden = true;
}

function renderSteps(view) {
  $("first").disabled = $("back").disabled = view.at === 0;
  $("forward").disabled = $("last").disabled = view.at === view.length;
  $("undo").disabled = view.at === 0;
}

// Marks on the board: the selected square and where the selected piece may go.
function squareRect(square) {
  return $("board").querySelector(`rect.square[data-square="${square}"]`);
}

function mark(square, kind) {
  const rect = squareRect(square);
  if (!rect) return;
  const svg = rect.ownerSVGElement;
  const x = +rect.getAttribute("x"), y = +rect.getAttribute("y"), size = +rect.getAttribute("width");
  let shape;
  if (kind === "selected") {
    shape = document.createElementNS(SVG_NS, "rect");
    shape.setAttribute("x", x);
    shape.setAttribute("y", y);
    shape.setAttribute("width", size);
    shape.setAttribute("height", size);
    shape.setAttribute("fill", "#ffd84d");
    shape.setAttribute("opacity", "0.6");
    rect.after(shape);          // under the pieces
  } else {
    const taken = svg.querySelector(`g.piece[data-square="${square}"]`);
    shape = document.createElementNS(SVG_NS, "circle");
    shape.setAttribute("cx", x + size / 2);
    shape.setAttribute("cy", y + size / 2);
    shape.setAttribute("r", taken ? size * 0.45 : size * 0.15);
    shape.setAttribute("fill", taken ? "none" : "#1f6fd1");
    shape.setAttribute("stroke", taken ? "#1f6fd1" : "none");
    shape.setAttribute("stroke-width", taken ? size * 0.07 : 0);
    shape.setAttribute("opacity", "0.7");
    shape.dataset.target = square;
    svg.appendChild(shape);
  }
  shape.classList.add("mark");
}

function clearMarks() {
  for (const shape of $("board").querySelectorAll(".mark")) shape.remove();
}

function wantDouble() {
  return !$("double-choice").hidden && $("double").checked;
}

function movesOf(selection) {
  return desk.view.legal.filter((m) =>
    (selection.drop ? m.drop === selection.drop : m.from === selection.from) &&
    m.opens_double === wantDouble());
}

function select(selection) {
  if (desk.attempt) render();
  clearMarks();
  desk.selected = selection;
  for (const button of $("hand").querySelectorAll("button")) {
    button.classList.toggle("selected", selection !== null && button.dataset.drop === selection.drop);
  }
  $("promotion").hidden = true;
  if (!selection) return;
  if (selection.from) mark(selection.from, "selected");
  for (const square of new Set(movesOf(selection).map((m) => m.to))) mark(square, "target");
}

// ---------------------------------------------------------------- clicking

function pieceOn(square) {
  const piece = $("board").querySelector(`g.piece[data-square="${square}"]`);
  return piece ? piece.dataset.piece : null;
}

function isMine(piece) {
  if (!piece) return false;
  const letter = piece.replace("*", "");
  return (letter === letter.toUpperCase()) === (desk.view.to_move === "white");
}

function onSquare(square) {
  const selection = desk.selected;
  const mine = isMine(pieceOn(square));
  if (desk.attempt) render();
  if (selection) {
    if (selection.from === square) {
      select(null);
      return;
    }
    const targets = movesOf(selection).map((m) => m.to);
    if (mine && !targets.includes(square)) {
      select({from: square});
      return;
    }
    attempt(selection, square);
    return;
  }
  if (mine) {
    select({from: square});
  } else {
    showInfo(`Click a piece of the side to move first (${capital(desk.view.to_move)} is to move).`);
  }
}

function attempt(selection, to) {
  const found = movesOf(selection).filter((m) => m.to === to);
  if (found.length === 1) {
    play(found[0].move);
  } else if (found.length > 1) {
    askPromotion(found);
  } else {
    const click = {to, double: wantDouble()};
    if (selection.drop) click.drop = selection.drop; else click.from = selection.from;
    const what = selection.drop ? `the ${selection.drop} from hand` : `the ${pieceWord(pieceOn(selection.from))} on ${selection.from}`;
    explain({click}, `${capital(desk.view.to_move)} tries ${what} to ${to}`);
  }
}

function askPromotion(moves) {
  const box = $("promotion");
  box.textContent = "Promote to: ";
  for (const m of moves) {
    const button = document.createElement("button");
    button.type = "button";
    button.dataset.promotion = m.promotion;
    button.textContent = PIECES[m.promotion] || m.promotion;
    button.title = m.move;
    button.addEventListener("click", () => play(m.move));
    box.appendChild(button);
  }
  const cancel = document.createElement("button");
  cancel.type = "button";
  cancel.textContent = "Cancel";
  cancel.addEventListener("click", () => select(null));
  box.appendChild(cancel);
  box.hidden = false;
}

// ------------------------------------------------------------- explaining

const NAMES = {k: "king", q: "queen", r: "rook", b: "bishop", n: "knight", p: "pawn"};

function pieceWord(piece) {
  if (!piece) return "piece";
  return (piece.startsWith("*") ? "double-" : "") + (NAMES[piece.slice(-1).toLowerCase()] || "piece");
}

async function explain(question, label) {
  const body = Object.assign(lineOf(desk), question);
  body.moves = desk.line.slice(0, desk.at);
  try {
    const result = await call("explain", body);
    clearMessage();
    select(null);
    showExplanation(result, label ? `${label} (${result.input}): ${result.legal ? "legal" : "not allowed"}` : null);
  } catch (e) {
    showError(e);
  }
}

function showExplanation(result, heading) {
  const box = $("explanation");
  const what = result.kind === "turn" ? "turn" : "move";
  const who = capital(result.to_move);
  box.classList.toggle("legal", result.legal);
  $("explanation-title").textContent = heading ||
    (result.legal ? `${result.input}: a legal ${what} for ${who}` : `${result.input}: not a legal ${what} for ${who}`);
  $("explanation-reason").textContent = result.legal
    ? `${result.san} (${result.turn}); the position after it: ${result.fen_after}`
    : `Reason: ${result.reason}`;
  const moves = $("explanation-moves");
  moves.textContent = "";
  if (result.moves.length > 1) {
    result.moves.forEach((m) => {
      const item = document.createElement("li");
      const state = m.legal === true ? "legal" : m.legal === false ? "refused" : "not reached";
      item.textContent = m.legal ? `${m.san} (${m.move}): ${state}` : `${m.text}: ${state}`;
      moves.appendChild(item);
    });
  }
  const rules = $("explanation-rules");
  rules.textContent = "";
  for (const id of result.rules || []) {
    const term = document.createElement("dt");
    const link = document.createElement("a");
    link.href = `/rules#${encodeURIComponent(id)}`;
    link.target = "_blank";
    link.rel = "noopener";
    link.textContent = `Rule ${id}`;
    term.append(link, result.rule_titles && result.rule_titles[id] ? `: ${result.rule_titles[id]}` : "");
    rules.appendChild(term);
    const statement = result.rule_statements && result.rule_statements[id];
    if (statement) {
      const text = document.createElement("dd");
      text.textContent = statement;
      rules.appendChild(text);
    }
  }
  $("explanation-note").textContent = result.note ? `Note: ${result.note}` : "";
  box.hidden = false;
  if (result.svg) {
    drawBoard(result.svg);
    desk.attempt = true;
  }
}

function hideExplanation() {
  $("explanation").hidden = true;
}

// --------------------------------------------------------------- messages

function showError(e) {
  const box = $("message");
  box.className = "error";
  box.textContent = e instanceof DeskError ? e.message : `error: ${e}`;
  box.hidden = false;
}

function showInfo(text) {
  const box = $("message");
  box.className = "info";
  box.textContent = text;
  box.hidden = false;
}

function clearMessage() {
  $("message").hidden = true;
}

function capital(word) {
  return word ? word[0].toUpperCase() + word.slice(1) : word;
}

function ordinal(n) {
  return ["first", "second"][n - 1] || `move ${n}`;
}

// ------------------------------------------------------------ copy, paste

async function copyText(text, what) {
  const note = $("copied");
  try {
    if (!navigator.clipboard) throw new Error("no clipboard");
    await navigator.clipboard.writeText(text);
    note.textContent = `${what} copied.`;
  } catch (e) {
    note.textContent = `Select the ${what} below and copy it.`;
  }
}

async function copyPgn() {
  try {
    const answer = await call("pgn", lineOf(desk));
    const out = $("pgn-output");
    out.value = answer.pgn;
    out.hidden = false;
    await copyText(answer.pgn, "PGN");
  } catch (e) {
    showError(e);
  }
}

function currentGame() {
  return desk.replay === null ? null : desk.games[desk.replay];
}

async function loadPgn() {
  const text = $("pgn-input").value;
  try {
    const answer = await call("replay", {pgn: text});
    const report = $("replay-report");
    report.textContent = answer.report;
    report.classList.toggle("bad", !answer.record_ok);
    report.hidden = false;
    const choose = $("game");
    choose.textContent = "";
    answer.games.forEach((g, i) => {
      const option = document.createElement("option");
      option.value = i;
      option.textContent = `game ${g.game}: ${g.variant}${g.tags.White ? `, ${g.tags.White} - ${g.tags.Black}` : ""}`;
      choose.appendChild(option);
    });
    choose.hidden = answer.games.length < 2;
    desk.games = answer.games;
    await openGame(0);
  } catch (e) {
    showError(e);
  }
}

function openGame(index) {
  const game = desk.games[index];
  desk.replay = index;
  return show({variant: game.variant, fen: game.fen, line: game.moves, at: 0});
}

// ---------------------------------------------------------------- steps

function boundaries() {
  return [0].concat(desk.view.line.map((t) => t.upto));
}

function step(where) {
  const at = desk.view.at;
  const marks = boundaries();
  const target = {
    first: 0,
    last: desk.view.length,
    back: Math.max(0, ...marks.filter((b) => b < at)),
    forward: Math.min(desk.view.length, ...marks.filter((b) => b > at)),
  }[where];
  show({at: target});
}

function undo() {
  if (desk.at === 0) return;
  const line = desk.line.slice(0, desk.at - 1);
  desk.replay = null;
  show({line, at: line.length});
}

// ---------------------------------------------------------------- start

async function start() {
  try {
    const hello = await call("hello");
    const choose = $("variant");
    for (const id of hello.variants) {
      const option = document.createElement("option");
      option.value = option.textContent = id;
      choose.appendChild(option);
    }
  } catch (e) {
    showError(e);
    return;
  }
  $("variant").addEventListener("change", (e) => {
    desk.replay = null;
    show({variant: e.target.value, fen: null, line: [], at: 0});
  });
  $("start").addEventListener("click", () => {
    desk.replay = null;
    show({fen: null, line: [], at: 0});
  });
  $("set-fen").addEventListener("click", () => {
    const fen = $("fen-input").value.trim();
    if (!fen) {
      showInfo("Paste a FEN into the field first.");
      return;
    }
    const saved = desk.replay;
    desk.replay = null;
    show({fen, line: [], at: 0}).then((ok) => { if (!ok) desk.replay = saved; });
  });
  $("board").addEventListener("click", (event) => {
    const square = event.target.closest("[data-square]");
    if (square && desk.view && desk.busy === 0) onSquare(square.dataset.square);
  });
  $("double").addEventListener("change", () => select(desk.selected));
  $("undo").addEventListener("click", undo);
  for (const where of ["first", "back", "forward", "last"]) {
    $(where).addEventListener("click", () => step(where));
  }
  $("dismiss").addEventListener("click", render);
  $("copy-fen").addEventListener("click", () => copyText(desk.view.fen, "FEN"));
  $("copy-pgn").addEventListener("click", copyPgn);
  $("ask-move").addEventListener("click", () => explain({move: $("ask-text").value}));
  $("ask-turn").addEventListener("click", () => explain({turn: $("ask-text").value}));
  $("load-pgn").addEventListener("click", loadPgn);
  $("game").addEventListener("change", (e) => openGame(+e.target.value));
  await show({});
}

start();
