#!/usr/bin/env node
// A chess engine that speaks doublecheck's JSON-lines protocol (`doublecheck docs protocol`),
// built on the chess.js library: the template for engines written for the web.
//
//   npm ci
//   doublecheck run --engine "node engine.js" --variant chess --quick
//
// One request per line on stdin, one answer per line on stdout; nothing else goes to stdout.
// Each operation is one function in the OPS table below; what chess.js does not check (the
// castling rights against the pieces, the en passant square, the side not to move in check,
// repetitions) is written out here, since the suite tests exactly those corners.

import { realpathSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { Chess, validateFen } from 'chess.js';

const NAME = 'chess.js-example';
const VARIANTS = ['chess'];
const MAX_MOVE_TEXT = 64;          // the protocol's limit on one item of `moves`
const MAX_MOVES = 100_000;         // ... and on their number

class RequestError extends Error {
  constructor(code, message) {
    super(message);
    this.code = code;
  }
}

// --- reading a position -------------------------------------------------------------------

const FILES = 'abcdefgh';
const HOME_ROOKS = { K: ['h1', 'R'], Q: ['a1', 'R'], k: ['h8', 'r'], q: ['a8', 'r'] };

function pieceAt(game, square) {
  const piece = game.get(square);
  if (!piece) return null;
  return piece.color === 'w' ? piece.type.toUpperCase() : piece.type;
}

// What chess.js accepts but the rules do not (ruling G9 of the catalogue: `doublecheck rules G9`).
function positionProblem(game, fields) {
  const [, turn, castling, ep] = fields;
  if (!/^(-|K?Q?k?q?)$/.test(castling)) return `castling field ${castling} is not - or KQkq in that order`;
  for (const right of castling === '-' ? '' : castling) {
    const [rookSquare, rook] = HOME_ROOKS[right];
    const kingSquare = right === right.toUpperCase() ? 'e1' : 'e8';
    const king = right === right.toUpperCase() ? 'K' : 'k';
    if (pieceAt(game, kingSquare) !== king || pieceAt(game, rookSquare) !== rook) {
      return `castling right ${right} without its king and rook at home`;
    }
  }
  if (ep !== '-' && !enPassantPossible(game, ep, turn)) {
    return `en passant square ${ep} does not follow a double step`;
  }
  for (const square of ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h'].flatMap(f => [`${f}1`, `${f}8`])) {
    if ((pieceAt(game, square) || '').toLowerCase() === 'p') return `a pawn on ${square}`;
  }
  const waiting = turn === 'w' ? 'b' : 'w';
  const kingSquare = findKing(game, waiting);
  if (kingSquare && game.isAttacked(kingSquare, turn)) return 'the side not to move is in check';
  return null;
}

function enPassantPossible(game, ep, turn) {
  const rank = turn === 'w' ? '6' : '3';
  const pawnRank = turn === 'w' ? '5' : '4';
  const fromRank = turn === 'w' ? '7' : '2';
  const file = ep[0];
  const pawn = turn === 'w' ? 'p' : 'P';
  return ep[1] === rank && FILES.includes(file) && !pieceAt(game, ep)
    && !pieceAt(game, `${file}${fromRank}`) && pieceAt(game, `${file}${pawnRank}`) === pawn;
}

function findKing(game, color) {
  for (const row of game.board()) {
    for (const piece of row) {
      if (piece && piece.type === 'k' && piece.color === color) return piece.square;
    }
  }
  return null;
}

function load(fen) {
  if (fen === undefined || fen === null) return new Chess();
  if (typeof fen !== 'string') throw new RequestError('invalid-request', 'fen must be a string');
  const fields = fen.split(' ');
  const checked = validateFen(fen);
  if (!checked.ok) throw new RequestError('invalid-fen', checked.error);
  const game = new Chess(fen);
  const problem = positionProblem(game, fields);
  if (problem) throw new RequestError('invalid-fen', problem);
  return game;
}

// --- reading moves ------------------------------------------------------------------------

const COORDINATES = /^([a-p])(\d+)([a-p])(\d+)([qrbnk]?)$/;
const SAN = /^(O-O(-O)?|[KQRBN][a-h]?[1-8]?x?[a-h][1-8]|([a-h]x)?[a-h][1-8](=?[QRBN])?)[+#]?$/;

function onBoard(file, rank) {
  return FILES.includes(file) && rank.length === 1 && rank >= '1' && rank <= '8';
}

// The legal move a text names, or a RequestError saying why there is none.
function findMove(game, text) {
  if (typeof text !== 'string' || text.length > MAX_MOVE_TEXT) {
    throw new RequestError('invalid-move-text', `not a move text: ${String(text).slice(0, 80)}`);
  }
  if (text.includes(',')) {
    // a chess turn is one move: a turn of two (or a half with a trailing comma) is never legal
    for (const part of text.split(',').filter(Boolean)) readable(part);
    throw new RequestError('illegal-move', `${text}: a turn of chess is a single move`);
  }
  readable(text);
  const legal = game.moves({ verbose: true });
  const found = legal.filter(m => m.lan === text || m.san.replace(/[+#]$/, '') === text.replace(/[+#]$/, ''));
  if (found.length !== 1) {
    throw new RequestError('illegal-move', `${text} is not a legal move here (${game.turn() === 'w' ? 'White' : 'Black'} to move)`);
  }
  return found[0];
}

function readable(text) {
  const coords = COORDINATES.exec(text);
  if (coords) {
    if (onBoard(coords[1], coords[2]) && onBoard(coords[3], coords[4])) return;
    throw new RequestError('invalid-move-text', `${text} names a square the board does not have`);
  }
  if (!SAN.test(text)) throw new RequestError('invalid-move-text', `${text} is not a move`);
}

// Repetition keys: what makes two positions the same (placement, side, castling, and the en
// passant square only when a capture there is legal, which chess.js's fen() already respects).
function key(game) {
  return game.fen().split(' ').slice(0, 4).join(' ');
}

// The position after the request's moves, and the keys of every position on the way.
function position(request) {
  if (request.variant !== undefined && !VARIANTS.includes(request.variant)) {
    throw new RequestError('unknown-variant', `unknown variant ${request.variant}`);
  }
  const game = load(request.fen);
  const moves = request.moves ?? [];
  if (!Array.isArray(moves) || moves.length > MAX_MOVES) {
    throw new RequestError('invalid-request', 'moves must be a list of at most 100000 texts');
  }
  const seen = [key(game)];
  for (const text of moves) {
    game.move(findMove(game, text));
    seen.push(key(game));
  }
  return { game, seen };
}

// --- the operations -----------------------------------------------------------------------

function deadPosition(game) {
  const others = game.board().flat().filter(p => p && p.type !== 'k');
  if (others.length === 0) return true;
  if (others.length === 1 && 'nb'.includes(others[0].type)) return true;
  if (others.every(p => p.type === 'b')) {
    const shades = new Set(others.map(p => (FILES.indexOf(p.square[0]) + Number(p.square[1])) % 2));
    return shades.size === 1;
  }
  return false;
}

function gameStatus(game, seen) {
  const over = (result, reason) => ({ over: true, result, reason, claimable: [] });
  if (game.isCheckmate()) return over(game.turn() === 'w' ? '0-1' : '1-0', 'checkmate');
  if (game.isStalemate()) return over('1/2-1/2', 'stalemate');
  if (deadPosition(game)) return over('1/2-1/2', 'dead-position');
  const clock = Number(game.fen().split(' ')[4]);
  const repeated = seen.filter(k => k === seen[seen.length - 1]).length;
  if (clock >= 150) return over('1/2-1/2', 'seventy-five-moves');
  if (repeated >= 5) return over('1/2-1/2', 'fivefold-repetition');
  const claimable = [];
  if (clock >= 100) claimable.push('fifty-moves');
  if (repeated >= 3) claimable.push('threefold-repetition');
  return { over: false, result: null, reason: null, claimable };
}

// chess.js's own perft counts the moves of the position at depth 0 too; perft 0 is one node,
// the position itself (`doublecheck rules G7`), and the suite checks it.
const count = (game, depth) => (depth === 0 ? 1 : game.perft(depth));

function perft(request) {
  const { game } = position(request);
  const depth = request.depth;
  if (!Number.isInteger(depth) || depth < 0 || depth > 13) {
    throw new RequestError('invalid-request', 'depth must be a whole number from 0 to 13');
  }
  if (!request.divide || depth === 0) return { nodes: count(game, depth) };
  const divide = {};
  for (const move of game.moves({ verbose: true })) {
    game.move(move);
    divide[move.lan] = count(game, depth - 1);
    game.undo();
  }
  return { nodes: Object.values(divide).reduce((a, b) => a + b, 0), divide };
}

const legalMoves = request => position(request).game.moves({ verbose: true }).map(m => m.lan);

const OPS = {
  moves: request => ({ moves: legalMoves(request) }),
  turns: request => ({ turns: legalMoves(request) }),   // in chess a turn is one move
  play: request => {
    const { game, seen } = position(request);
    return { fen: game.fen(), status: gameStatus(game, seen) };
  },
  status: request => {
    const { game, seen } = position(request);
    return { status: gameStatus(game, seen) };
  },
  perft,
  fen: request => ({ fen: position(request).game.fen() }),
};

function hello(request) {
  const offered = Array.isArray(request.protocol) ? request.protocol : [];
  if (!offered.includes('1')) {
    throw new RequestError('unsupported-protocol', 'this engine speaks protocol version 1');
  }
  return { protocol: '1', name: NAME, variants: VARIANTS, ops: Object.keys(OPS) };
}

// --- the loop -----------------------------------------------------------------------------

function answer(line) {
  let request;
  try {
    request = JSON.parse(line);
  } catch {
    return { id: null, ok: false, error: { code: 'invalid-request', message: 'the line is not JSON' } };
  }
  const id = request && typeof request === 'object' ? request.id ?? null : null;
  try {
    if (!request || typeof request !== 'object' || Array.isArray(request)) {
      throw new RequestError('invalid-request', 'a request is a JSON object');
    }
    const op = request.op === 'hello' ? hello : OPS[request.op];
    if (!op) throw new RequestError('unsupported', `unknown operation ${request.op}`);
    return { id, ok: true, ...op(request) };
  } catch (e) {
    const code = e instanceof RequestError ? e.code : 'internal-error';
    return { id, ok: false, error: { code, message: String(e.message) } };
  }
}

// `answer` is also what a test imports (vectors.test.js): the loop runs only for `node engine.js`.
export { answer };

const runAsProgram = process.argv[1] !== undefined
  && realpathSync(process.argv[1]) === realpathSync(fileURLToPath(import.meta.url));
if (runAsProgram) {
  const input = createInterface({ input: process.stdin, crlfDelay: Infinity });
  input.on('line', line => process.stdout.write(`${JSON.stringify(answer(line))}\n`));
}
