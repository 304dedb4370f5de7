"use strict";
// The referee protocol (protocol/SPEC.md): connect a DEALER socket, say hello, then
// answer every `act` with the bot's action until `bye`. Your bot is an object:
//   act(view, info)      -> the action map (required); throw to send an error reply
//   onGameStart(info)    game_start's fields (game, seat, players, seed, params, ...)
//   onNotice(notice)     each notice the game tells your seat, oldest first
//   onGameEnd(info)      game_end's fields (places, scores, order)
const zmq = require("zeromq");
const { encode, decode } = require("@msgpack/msgpack");

const PROTOCOL = 2;
const HELLO_TIMEOUT_MS = 30000;
const ERROR_CHARS = 1000;

function log(text) {
  process.stderr.write(`${text}\n`); // stderr is the bot's log in the run directory
}

/** The reply to an `act`: the bot's action, or an error reply saying why there is none. */
function reply(bot, msg, info) {
  // seq is echoed exactly as received: it proves the reply answers this request.
  const out = { type: "action", seq: msg.seq };
  try {
    for (const notice of msg.results || []) if (bot.onNotice) bot.onNotice(notice);
    const action = bot.act(msg.view, info);
    if (action === null || typeof action !== "object" || Array.isArray(action)) {
      throw new Error(`act returned ${JSON.stringify(action)}, which is not an action map`);
    }
    out.action = action;
  } catch (err) {
    log(err && err.stack ? err.stack : String(err));
    out.error = `act raised ${err && err.message ? err.message : err}`.slice(0, ERROR_CHARS);
  }
  return encode(out);
}

/** Serve the referee until `bye`. */
async function run(bot, name) {
  const endpoint = process.env.REFEREE_ENDPOINT;
  const token = process.env.REFEREE_TOKEN;
  if (!endpoint || !token) {
    throw new Error("REFEREE_ENDPOINT/REFEREE_TOKEN not set: bots are started by the referee");
  }
  const sock = new zmq.Dealer({ linger: 0, receiveTimeout: HELLO_TIMEOUT_MS });
  sock.connect(endpoint);
  const hello = { type: "hello", token, protocol: PROTOCOL };
  if (name) hello.name = name;
  await sock.send(encode(hello));
  const [first] = await sock.receive();
  const welcome = decode(first);
  if (welcome.type !== "welcome") throw new Error(`refused: ${welcome.reason}`);
  sock.receiveTimeout = -1;
  let info = null;
  for (;;) {
    const [frame] = await sock.receive();
    const msg = decode(frame);
    if (msg.type === "act") {
      await sock.send(reply(bot, msg, info));
    } else if (msg.type === "game_start") {
      info = msg;
      if (bot.onGameStart) guarded(() => bot.onGameStart(msg));
    } else if (msg.type === "game_end") {
      for (const notice of msg.results || []) {
        if (bot.onNotice) guarded(() => bot.onNotice(notice));
      }
      if (bot.onGameEnd) guarded(() => bot.onGameEnd(msg));
      info = null;
    } else if (msg.type === "bye") {
      break;
    } // other types: a later protocol's additions, ignored (SPEC.md section 9)
  }
  sock.close();
}

function guarded(hook) {
  try {
    hook();
  } catch (err) {
    log(err && err.stack ? err.stack : String(err));
  }
}

/** Run `bot` as the main program: exit 0 on bye, 1 with the reason on stderr otherwise. */
function main(bot, name) {
  run(bot, name).then(
    () => process.exit(0),
    (err) => {
      log(`bot stopped: ${err && err.message ? err.message : err}`);
      process.exit(1);
    },
  );
}

module.exports = { run, main, reply };
