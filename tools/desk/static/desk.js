"use strict";
// The rules desk page.  It keeps only the line being looked at (variant, start
// FEN, the moves in coordinates, how many of them the board shows) and asks the
// server for everything else: legal moves, the board picture, the status, the
// explanations.  The server remembers nothing between requests (docs/desk.md).

const $ = (id) => document.getElementById(id);
const SVG_NS = "http://www.w3.org/2000/svg";
const PIECES = {q: "Queen", r: "Rook", b: "Bishop", n: "Knight"};

// The game-record box's example, by variant: a few legal turns written the variant's way
// (tests/test_desk_browser.py replays each). A variant not listed gets the chess one.
const RECORD_EXAMPLES = {
  "chess": "1. e4 e5 2. Nf3 Nc6",
  "double-move": "1. e4,d4 e5",
  "double-move-anul": "1. e4,d4 e5,d5",
  "double-chess": "1. e4 e5 2. Ng3 Ng6",
  "symmetric-monster": "1. e4 e5 2. Nf3",
  "marseillais": "1. e4 e5,d5 2. exd5,Nf3",
  "marseillais-classic": "1. e4,d4 e5,d5"
};

const desk = {
  variant: "chess",
  fen: null,        // the start position (null: the variant's own)
  line: [],         // the moves of the line, in coordinates
  at: 0,            // how many of them the board shows
  view: null,       // the server's answer for that moment
  selected: null,   // {from: "b3"} or {drop: "K"}
  games: [],        // the games of the last checked record
  record: "",       // that record's text
  replay: null,     // the index of the game being stepped through, while the line is its
  attempt: false,   // the board shows an attempted move rather than the position
  busy: 0,
  flip: false,      // the board drawn from Black's side
  focus: null,      // the square the keyboard is on
  keyboard: false,  // the keyboard has been used on the board (its focus square is drawn)
  figures: {},      // each piece as a small picture (from the server's hello)
  options: {},      // declared rule options the line is played under (docs/options.md)
  optionList: [],   // the rule options the server offers (from its hello)
  startOptions: {}, // the options the page starts under (doublecheck desk --option)
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
  if (Object.keys(state.options).length) body.options = state.options;
  return body;
}

// The house-rules control: one choice per rule option the variant takes; the line is
// played again under the new choice (the server refuses it when it is no longer legal).
function drawOptions() {
  const box = $("options");
  box.textContent = "";
  const taken = desk.optionList.filter((o) => o.variants.includes(desk.variant));
  $("options-box").hidden = taken.length === 0;
  for (const option of taken) {
    const label = document.createElement("label");
    label.title = option.summary;
    label.append(`${option.name} `);
    const choose = document.createElement("select");
    choose.dataset.option = option.name;
    for (const value of option.values) {
      const item = document.createElement("option");
      item.value = value;
      item.textContent = value === option.default ? `${value} (default)` : value;
      choose.appendChild(item);
    }
    choose.value = desk.options[option.name] || option.default;
    choose.addEventListener("change", () => {
      const options = Object.assign({}, desk.options);
      if (choose.value === option.default) delete options[option.name];
      else options[option.name] = choose.value;
      show({options}).then((ok) => { if (!ok) choose.value = desk.options[option.name] || option.default; });
    });
    label.appendChild(choose);
    box.appendChild(label);
  }
}

// Show a moment of a line; the page's state changes only when the server accepts it.
async function show(changes) {
  const next = Object.assign({}, desk, changes);
  try {
    const view = await call("position", Object.assign(lineOf(next), {at: next.at, flip: next.flip}));
    const before = desk.view;
    Object.assign(desk, changes);
    desk.view = view;
    desk.selected = null;
    clearMessage();
    render();
    announce(happening(before, view));
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
  // Inside the page the board is a set of named squares, not one picture.
  picture.setAttribute("role", "group");
  picture.setAttribute("aria-label", desk.flip ? "the board, Black at the bottom" : "the board, White at the bottom");
  for (const rect of picture.querySelectorAll("rect.square")) {
    rect.id = `square-${rect.dataset.square}`;
    rect.setAttribute("role", "button");
  }
  for (const piece of picture.querySelectorAll("g.piece")) piece.setAttribute("role", "img");
  drawFocus();
}

function render() {
  const view = desk.view;
  desk.attempt = false;
  drawOptions();
  drawBoard(view.svg);
  $("fen").value = view.fen;
  $("variant").value = view.variant;
  renderStatus(view);
  renderPanel(view);
  renderTurn(view);
  renderList($("state"), view.state.concat(view.notes));
  renderLine(view);
  renderChoices(view);
  renderSteps(view);
  hideExplanation();
  $("pgn-input").placeholder = `[Variant "${view.variant}"]\n\n${RECORD_EXAMPLES[view.variant] || RECORD_EXAMPLES.chess}`;
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

// A turn's number as game records write it: the fullmove number, with "..." for Black, or where
// the rules number every turn on its own (progressive chess numbers each series, P9) that number.
function turnLabel(view, turn) {
  return view.numbers_each_turn || turn.side === "white" ? `${turn.number}.` : `${turn.number}...`;
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
  const label = `${turnLabel(view, turn)}`;
  const halves = moves.map((m, i) => `${ordinal(i + 1)} move ${m}`).join(", ");
  if (view.mid_turn) {
    box.textContent = `${capital(turn.side)}'s turn ${label} is under way: ${halves}; ` +
      `the turn goes on (${view.moves.length} possible next moves).`;
  } else {
    const parts = moves.length > 1 ? ` (${halves})` : "";
    box.textContent = `Last turn: ${label} ${turn.san}${parts}. ${capital(view.to_move)} to move.`;
  }
}

// The turn panel: one slot per action of the turn the side to move is playing, as the
// server names them (the rules' turn_slots: n slots for a series of n moves), the next one being the one the rules allow
// now; under it the turn that has just ended, with the reason for any slot left empty.
function renderPanel(view) {
  const panel = view.turn;
  const over = view.status.over && !view.mid_turn;
  $("turn-title").textContent = over ? `The game is over (${view.status.result})`
    : `${capital(panel.side)}'s turn ${turnLabel(view, panel)}`;
  $("slots").hidden = over;
  const unplayed = {played: "before this position", next: "to play now", waiting: "not yet"};
  // an action the rules say will not come this turn, or only on a condition, shows their words
  fillSlots($("slots"), panel.slots.map((slot) => Object.assign({}, slot, {
    shown: slot.san || (slot.why ? slot.why.words : unplayed[slot.state]), unknown: !slot.san,
    why: slot.why && `(${slot.why.rule}: ${slot.why.title})`, rule: slot.why && slot.why.rule})));
  const last = lastTurn(view);
  $("last-turn").hidden = !last;
  if (!last) return;
  $("last-title").textContent = `Last turn: ${capital(last.side)} ${turnLabel(view, last)}`;
  // A turn that began before a FEN set between its actions lacks its earlier ones.
  // the rules' slots for that very turn (a turn's length may depend on the colour or grow)
  const names = last.slots || view.side_actions[last.side];
  const earlier = last.end ? 0 : names.length - last.actions.length;
  fillSlots($("last-slots"), names.map((name, i) => {
    if (i < earlier) return {name, state: "played", shown: "before this position", unknown: true};
    if (i < earlier + last.actions.length) return {name, state: "played", shown: last.actions[i - earlier]};
    return {name, state: "empty", shown: "left empty", why: reasonText(last.end), rule: last.end.rule};
  }));
}

function fillSlots(list, slots) {
  list.textContent = "";
  for (const slot of slots) {
    const item = document.createElement("li");
    item.dataset.state = slot.state;
    if (slot.rule) item.dataset.rule = slot.rule;
    const name = document.createElement("span");
    name.className = "name";
    name.textContent = slot.name;
    const shown = document.createElement("span");
    shown.className = slot.state === "played" && !slot.unknown ? "san" : "open";
    shown.textContent = slot.shown;
    item.append(name, shown);
    if (slot.why) {
      const why = document.createElement("span");
      why.className = "why";
      why.textContent = slot.why;
      item.appendChild(why);
    }
    list.appendChild(item);
  }
}

// The turn that ended where the board stands (null in the middle of a turn or at the start).
function lastTurn(view) {
  return view.line.find((t) => t.complete && t.upto === view.at) || null;
}

function slotLeft(view, turn) {
  return (turn.slots || view.side_actions[turn.side]).slice(turn.actions.length).join(", ");
}

function reasonText(end) {
  return `${end.words} (${end.rule}: ${end.title})`;
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
    number.textContent = `${turnLabel(view, turn)} `;
    // a series numbered on its own is written with its moves apart (P9: 2. e5 Qh4)
    button.append(number, view.numbers_each_turn ? turn.san.replace(/,(?=.)/g, " ") : turn.san);
    button.title = turn.moves.join(",");
    button.addEventListener("click", () => show({at: turn.upto}));
    item.appendChild(button);
    // only a turn that ended unlike most turns of the variant is marked (a capture brake,
    // not an ordinary move of double-move); the turn panel explains every turn all the same
    if (turn.end && !turn.end.usual) {
      const reason = document.createElement("span");
      reason.className = "reason";
      reason.dataset.rule = turn.end.rule;
      reason.textContent = `${slotLeft(view, turn)} empty: ${reasonText(turn.end)}`;
      item.appendChild(reason);
    }
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
      const piece = view.to_move === "white" ? `*${letter}` : `*${letter.toLowerCase()}`;
      button.append(figure(piece), `${letter}@ (drop)`);
      button.setAttribute("aria-label", `drop the ${view.to_move} double-${NAMES[letter.toLowerCase()]} from hand (${letter}@)`);
      button.title = "click, then an empty square to drop it on";
      button.addEventListener("click", () => select({drop: letter}));
      hand.appendChild(button);
    }
  }
  $("promotion").hidden = true;
  renderLegend(drops.length > 0);
}

// Doubled figures get a legend wherever the board shows one or a drop is offered.
function renderLegend(dropping) {
  const legend = $("legend");
  const doubled = $("board").querySelector('g.piece[data-piece^="*"]');
  legend.hidden = !(doubled || dropping);
  if (legend.hidden) return;
  legend.textContent = "";
  legend.append(figure("*P"), figure("*k"),
    "A doubled figure is a double-piece; the doubled king is the double-king.");
}

// A piece as a small picture, from the figures the server drew with the board's drawings.
function figure(piece) {
  const holder = document.createElement("span");
  holder.className = "figure-holder";
  holder.setAttribute("aria-hidden", "true");
  holder.innerHTML = desk.figures[piece] || "";
  return holder;
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
    const letter = desk.view.to_move === "white" ? m.promotion.toUpperCase() : m.promotion;
    button.append(figure(letter), PIECES[m.promotion] || m.promotion);
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

// ---------------------------------------------------------------- keyboard

// The focus square is drawn as a frame; the arrow keys move it over the squares as they
// are drawn (so a flipped board and the missing corners of a board need nothing special).
function drawFocus() {
  const old = $("board").querySelector(".focus-mark");
  if (old) old.remove();
  const rect = desk.focus && squareRect(desk.focus);
  if (!rect || !desk.keyboard) return;
  const shape = document.createElementNS(SVG_NS, "rect");
  const size = +rect.getAttribute("width");
  shape.setAttribute("x", +rect.getAttribute("x") + 2);
  shape.setAttribute("y", +rect.getAttribute("y") + 2);
  shape.setAttribute("width", size - 4);
  shape.setAttribute("height", size - 4);
  shape.setAttribute("fill", "none");
  shape.setAttribute("stroke", "#1f6fd1");
  shape.setAttribute("stroke-width", 4);
  shape.setAttribute("class", "focus-mark");
  rect.ownerSVGElement.appendChild(shape);
  $("board").setAttribute("aria-activedescendant", rect.id);
}

const ARROWS = {ArrowLeft: [-1, 0], ArrowRight: [1, 0], ArrowUp: [0, -1], ArrowDown: [0, 1]};

function neighbour(square, [dx, dy]) {
  const rects = [...$("board").querySelectorAll("rect.square")];
  const from = squareRect(square);
  const size = +from.getAttribute("width");
  const x = +from.getAttribute("x"), y = +from.getAttribute("y");
  const ahead = rects.filter((r) => {
    const rx = +r.getAttribute("x"), ry = +r.getAttribute("y");
    return dx ? ry === y && Math.sign(rx - x) === dx : rx === x && Math.sign(ry - y) === dy;
  });
  ahead.sort((a, b) => Math.abs(+a.getAttribute("x") - x) + Math.abs(+a.getAttribute("y") - y) -
    Math.abs(+b.getAttribute("x") - x) - Math.abs(+b.getAttribute("y") - y));
  return ahead.length ? ahead[0].dataset.square : square;
}

function firstFocus() {
  const mine = [...$("board").querySelectorAll("g.piece")].find((g) => isMine(g.dataset.piece));
  return mine ? mine.dataset.square : $("board").querySelector("rect.square").dataset.square;
}

function onBoardKey(event) {
  if (!desk.view || desk.busy > 0) return;
  if (ARROWS[event.key] || ["Enter", " ", "Escape"].includes(event.key)) desk.keyboard = true;
  if (ARROWS[event.key]) {
    event.preventDefault();
    desk.focus = desk.focus && squareRect(desk.focus) ? neighbour(desk.focus, ARROWS[event.key]) : firstFocus();
    drawFocus();
    announce(squareRect(desk.focus).getAttribute("aria-label"));
  } else if (event.key === "Enter" || event.key === " ") {
    event.preventDefault();
    if (!desk.focus || !squareRect(desk.focus)) desk.focus = firstFocus();
    onSquare(desk.focus);
    if (desk.selected && desk.selected.from === desk.focus) {
      const targets = movesOf(desk.selected).length;
      announce(`${squareRect(desk.focus).getAttribute("aria-label")} picked up: ${targets} legal ` +
        `${targets === 1 ? "move" : "moves"}; move to a square and press Enter.`);
    }
  } else if (event.key === "Escape") {
    select(null);
    announce("Nothing picked up.");
  }
}

// --------------------------------------------------------------- typing

// A move or a whole turn typed in the game's notation: played when the rules allow it
// (the server reads it; the line keeps coordinates), explained when they do not.
async function playTyped(event) {
  event.preventDefault();
  const text = $("move-text").value.trim();
  if (!text) {
    showInfo("Type a move (e4, Nf3, e2e4) or a whole turn (Qg8+,Qh7#) first.");
    return;
  }
  const line = desk.line.slice(0, desk.at).concat([text]);
  try {
    const view = await call("position", Object.assign(lineOf(desk), {fen: desk.fen || undefined,
      moves: line, flip: desk.flip}));
    desk.replay = null;
    $("move-text").value = "";
    await show({line: view.coordinates, at: view.coordinates.length});
  } catch (e) {
    if (e.code !== "illegal-move" && e.code !== "invalid-move-text") {
      showError(e);
      return;
    }
    const whole = text.replace(/,$/, "").includes(",");
    await explain(whole ? {turn: text} : {move: text}, `${capital(desk.view.to_move)} types ${text}`);
  }
}

// ---------------------------------------------------------------- flipping

async function flip() {
  const flipped = !desk.flip;
  $("flip").setAttribute("aria-pressed", String(flipped));
  $("orientation").textContent = flipped ? "Black at the bottom" : "White at the bottom";
  const game = currentGame();
  if (game && game.illegal) {
    // the record's refused turn is drawn by the server: ask for it the other way round
    try {
      desk.games = (await call("replay", {pgn: desk.record, flip: flipped})).games;
    } catch (e) {
      showError(e);
    }
  }
  await show({flip: flipped});
  announce(flipped ? "The board is flipped: Black at the bottom." : "White at the bottom.");
}

// ------------------------------------------------------------- announcing

function announce(text) {
  if (!text) return;
  const box = $("announce");
  box.textContent = "";
  // A fresh text node each time, so that the same words are announced again.
  window.setTimeout(() => { box.textContent = text; }, 30);
}

// What changed, in words: the moves just played or stepped over (with the turn's next
// slot, or why it ended), then the status of the position shown.
function happening(before, view) {
  const parts = [];
  const gone = before ? view.at - before.at : 0;
  if (before && before.variant === view.variant && gone > 0 && gone <= 4) {
    for (let i = before.at; i < view.at; i++) {
      const turn = view.line.find((t) => t.from <= i && i < t.upto);
      parts.push(`${capital(turn.side)} played ${turn.actions[i - turn.from]}.`);
    }
    const turn = view.line.find((t) => t.from < view.at && view.at <= t.upto);
    if (view.mid_turn) {
      const next = view.turn.slots.find((s) => s.state === "next");
      parts.push(`The turn goes on: ${next ? next.name : "the next move"}.`);
    } else if (turn && turn.end) {
      parts.push(`The turn ended: ${reasonText(turn.end)}.`);
    }
  }
  parts.push(view.status_text);
  return parts.join(" ");
}

// ------------------------------------------------------------- explaining

const NAMES = {k: "king", q: "queen", r: "rook", b: "bishop", n: "knight", p: "pawn"};

function pieceWord(piece) {
  if (!piece) return "piece";
  return (piece.startsWith("*") ? "double-" : "") + (NAMES[piece.slice(-1).toLowerCase()] || "piece");
}

async function explain(question, label) {
  const body = Object.assign(lineOf(desk), question, {flip: desk.flip});
  body.moves = desk.line.slice(0, desk.at);
  try {
    const result = await call("explain", body);
    clearMessage();
    select(null);
    showExplanation(result, label ? `${label} (${result.input}): ${result.legal ? "legal" : "not allowed"}` : null);
    announce(result.legal ? `${result.input} is legal here.` : `${result.input} is not allowed: ${result.reason}`);
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
  showVerdict(result);
  if (result.svg) {
    drawBoard(result.svg);
    desk.attempt = true;
  }
}

function hideExplanation() {
  $("explanation").hidden = true;
  $("verdict").hidden = true;
}

// The answer in one line directly under the board, where a phone shows it without scrolling;
// the box with the rules' text stays with the other facts.
function showVerdict(result) {
  const line = $("verdict");
  line.classList.toggle("legal", result.legal);
  line.textContent = result.legal ? `${result.input}: legal here (${result.san})`
    : `Not allowed: ${result.reason}`;
  line.hidden = false;
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
    const answer = await call("replay", {pgn: text, flip: desk.flip});
    desk.record = text;
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
  return show({variant: game.variant, fen: game.fen, line: game.moves, at: 0,
    options: Object.assign({}, desk.startOptions)});
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
    desk.figures = hello.desk.figures || {};
    desk.optionList = hello.desk.options || [];
    desk.startOptions = hello.desk.start_options || {};   // doublecheck desk --option
    desk.options = Object.assign({}, desk.startOptions);
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
    show({variant: e.target.value, fen: null, line: [], at: 0, options: Object.assign({}, desk.startOptions)});
  });
  $("start").addEventListener("click", () => {
    desk.replay = null;
    show({fen: null, line: [], at: 0});
  });
  $("fen-input").addEventListener("keydown", (event) => {
    if (event.key === "Enter") {
      event.preventDefault();
      $("set-fen").click();
    }
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
  $("board").addEventListener("keydown", onBoardKey);
  $("board").addEventListener("focus", () => {
    if (!desk.focus || !squareRect(desk.focus)) desk.focus = firstFocus();
    drawFocus();
  });
  $("board").addEventListener("mousedown", () => {
    desk.keyboard = false;
    drawFocus();
  });
  $("move-form").addEventListener("submit", playTyped);
  $("flip").addEventListener("click", flip);
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
