#include "referee.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zmq.h>

#define PROTOCOL 2
#define HELLO_TIMEOUT_MS 30000
#define ERROR_CHARS 1000

static char failure[ERROR_CHARS];

int kit_fail(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(failure, sizeof failure, fmt, ap);
    va_end(ap);
    return -1;
}

const msgpack_object *kit_get(const msgpack_object *map, const char *key) {
    if (map == NULL || map->type != MSGPACK_OBJECT_MAP) return NULL;
    for (uint32_t i = 0; i < map->via.map.size; i++) {
        const msgpack_object_kv *kv = &map->via.map.ptr[i];
        if (kit_str_is(&kv->key, key)) return &kv->val;
    }
    return NULL;
}

int64_t kit_int(const msgpack_object *o, int64_t fallback) {
    if (o == NULL) return fallback;
    if (o->type == MSGPACK_OBJECT_POSITIVE_INTEGER) return (int64_t)o->via.u64;
    if (o->type == MSGPACK_OBJECT_NEGATIVE_INTEGER) return o->via.i64;
    return fallback;
}

int kit_is_nil(const msgpack_object *o) { return o == NULL || o->type == MSGPACK_OBJECT_NIL; }

int kit_str_is(const msgpack_object *o, const char *text) {
    size_t n = strlen(text);
    return o != NULL && o->type == MSGPACK_OBJECT_STR && o->via.str.size == n
        && memcmp(o->via.str.ptr, text, n) == 0;
}

size_t kit_len(const msgpack_object *array) {
    return array != NULL && array->type == MSGPACK_OBJECT_ARRAY ? array->via.array.size : 0;
}

const msgpack_object *kit_at(const msgpack_object *array, size_t i) {
    return i < kit_len(array) ? &array->via.array.ptr[i] : NULL;
}

void kit_pack_str(msgpack_packer *pk, const char *text) {
    size_t n = strlen(text);
    msgpack_pack_str(pk, n);
    msgpack_pack_str_body(pk, text, n);
}

void kit_pack_kind(msgpack_packer *pk, const char *kind) {
    msgpack_pack_map(pk, 1);
    kit_pack_str(pk, "kind");
    kit_pack_str(pk, kind);
}

void kit_pack_kind_int(msgpack_packer *pk, const char *kind, const char *key, int64_t value) {
    msgpack_pack_map(pk, 2);
    kit_pack_str(pk, "kind");
    kit_pack_str(pk, kind);
    kit_pack_str(pk, key);
    msgpack_pack_int64(pk, value);
}

void kit_pack_kind_str(msgpack_packer *pk, const char *kind, const char *key,
                       const char *value) {
    msgpack_pack_map(pk, 2);
    kit_pack_str(pk, "kind");
    kit_pack_str(pk, kind);
    kit_pack_str(pk, key);
    kit_pack_str(pk, value);
}

static int send_buffer(void *sock, const msgpack_sbuffer *buf) {
    return zmq_send(sock, buf->data, buf->size, 0) < 0 ? -1 : 0;
}

/* The reply to an `act`: {"type": "action", "seq": <the request's own seq>, "action"
 * or "error"}. The seq is copied from the request, never counted: it proves the reply
 * answers that request. */
static int answer(void *sock, const kit_bot *bot, const msgpack_object *msg,
                  const kit_game *game) {
    const msgpack_object *seq = kit_get(msg, "seq");
    if (seq == NULL) return 0; /* not a request anyone can answer */
    msgpack_sbuffer action, out;
    msgpack_packer apk, pk;
    msgpack_sbuffer_init(&action);
    msgpack_sbuffer_init(&out);
    msgpack_packer_init(&apk, &action, msgpack_sbuffer_write);
    msgpack_packer_init(&pk, &out, msgpack_sbuffer_write);
    const msgpack_object *results = kit_get(msg, "results");
    for (size_t i = 0; bot->on_notice && i < kit_len(results); i++)
        bot->on_notice(kit_at(results, i), game, bot->state);
    failure[0] = '\0';
    int ok = bot->act(kit_get(msg, "view"), game, &apk, bot->state) == 0;
    if (!ok && failure[0] == '\0') kit_fail("act failed and said nothing");
    msgpack_pack_map(&pk, 3);
    kit_pack_str(&pk, "type");
    kit_pack_str(&pk, "action");
    kit_pack_str(&pk, "seq");
    msgpack_pack_object(&pk, *seq);
    if (ok) {
        kit_pack_str(&pk, "action");
        msgpack_sbuffer_write(&out, action.data, action.size);
    } else {
        fprintf(stderr, "act failed: %s\n", failure);
        kit_pack_str(&pk, "error");
        kit_pack_str(&pk, failure);
    }
    int rc = send_buffer(sock, &out);
    msgpack_sbuffer_destroy(&action);
    msgpack_sbuffer_destroy(&out);
    return rc;
}

static void start_game(kit_game *game, const msgpack_object *msg) {
    const msgpack_object *name = kit_get(msg, "game");
    memset(game, 0, sizeof *game);
    if (name != NULL && name->type == MSGPACK_OBJECT_STR && name->via.str.size < sizeof game->game)
        memcpy(game->game, name->via.str.ptr, name->via.str.size);
    game->seat = (int)kit_int(kit_get(msg, "seat"), -1);
    game->players = (int)kit_int(kit_get(msg, "players"), 0);
    game->seed = (uint64_t)kit_int(kit_get(msg, "seed"), 0);
}

/* One message from the referee; -1 when none came or it is not msgpack. */
static int receive(void *sock, zmq_msg_t *frame, msgpack_unpacked *msg) {
    if (zmq_msg_recv(frame, sock, 0) < 0) return -1;
    size_t offset = 0;
    msgpack_unpacked_destroy(msg);
    msgpack_unpacked_init(msg);
    return msgpack_unpack_next(msg, zmq_msg_data(frame), zmq_msg_size(frame), &offset)
        == MSGPACK_UNPACK_SUCCESS ? 0 : -1;
}

static int serve(void *sock, const kit_bot *bot) {
    kit_game game;
    memset(&game, 0, sizeof game);
    zmq_msg_t frame;
    msgpack_unpacked msg;
    msgpack_unpacked_init(&msg);
    zmq_msg_init(&frame);
    int rc = 1;
    for (;;) {
        if (receive(sock, &frame, &msg) < 0) {
            fprintf(stderr, "bot stopped: %s\n", zmq_strerror(zmq_errno()));
            break;
        }
        const msgpack_object *m = &msg.data, *type = kit_get(m, "type");
        if (kit_str_is(type, "act")) {
            if (answer(sock, bot, m, &game) < 0) break;
        } else if (kit_str_is(type, "game_start")) {
            start_game(&game, m);
            if (bot->on_game_start) bot->on_game_start(&game, bot->state);
        } else if (kit_str_is(type, "game_end")) {
            const msgpack_object *results = kit_get(m, "results");
            for (size_t i = 0; bot->on_notice && i < kit_len(results); i++)
                bot->on_notice(kit_at(results, i), &game, bot->state);
            if (bot->on_game_end) bot->on_game_end(m, &game, bot->state);
        } else if (kit_str_is(type, "bye")) {
            rc = 0;
            break;
        } /* other types: a later protocol's additions, ignored (SPEC.md section 9) */
    }
    zmq_msg_close(&frame);
    msgpack_unpacked_destroy(&msg);
    return rc;
}

static int hello(void *sock, const kit_bot *bot, const char *token) {
    msgpack_sbuffer buf;
    msgpack_packer pk;
    msgpack_sbuffer_init(&buf);
    msgpack_packer_init(&pk, &buf, msgpack_sbuffer_write);
    msgpack_pack_map(&pk, bot->name ? 4 : 3);
    kit_pack_str(&pk, "type");
    kit_pack_str(&pk, "hello");
    kit_pack_str(&pk, "token");
    kit_pack_str(&pk, token);
    kit_pack_str(&pk, "protocol");
    msgpack_pack_int(&pk, PROTOCOL);
    if (bot->name) {
        kit_pack_str(&pk, "name");
        kit_pack_str(&pk, bot->name);
    }
    int rc = send_buffer(sock, &buf);
    msgpack_sbuffer_destroy(&buf);
    if (rc < 0) return -1;
    zmq_msg_t frame;
    msgpack_unpacked msg;
    zmq_msg_init(&frame);
    msgpack_unpacked_init(&msg);
    rc = receive(sock, &frame, &msg) < 0 ? -1 : 0;
    if (rc == 0 && !kit_str_is(kit_get(&msg.data, "type"), "welcome")) {
        fprintf(stderr, "refused by the referee\n");
        rc = -1;
    }
    zmq_msg_close(&frame);
    msgpack_unpacked_destroy(&msg);
    return rc;
}

int kit_run(const kit_bot *bot) {
    const char *endpoint = getenv("REFEREE_ENDPOINT"), *token = getenv("REFEREE_TOKEN");
    if (endpoint == NULL || token == NULL) {
        fprintf(stderr, "REFEREE_ENDPOINT/REFEREE_TOKEN not set: bots are started by the referee\n");
        return 1;
    }
    void *ctx = zmq_ctx_new();
    void *sock = zmq_socket(ctx, ZMQ_DEALER);
    int linger = 0, timeout = HELLO_TIMEOUT_MS, forever = -1;
    zmq_setsockopt(sock, ZMQ_LINGER, &linger, sizeof linger);
    zmq_setsockopt(sock, ZMQ_RCVTIMEO, &timeout, sizeof timeout);
    int rc = 1;
    if (zmq_connect(sock, endpoint) != 0) {
        fprintf(stderr, "cannot connect to %s: %s\n", endpoint, zmq_strerror(zmq_errno()));
    } else if (hello(sock, bot, token) != 0) {
        fprintf(stderr, "no welcome from the referee at %s\n", endpoint);
    } else {
        zmq_setsockopt(sock, ZMQ_RCVTIMEO, &forever, sizeof forever);
        rc = serve(sock, bot);
    }
    zmq_close(sock);
    zmq_ctx_term(ctx);
    return rc;
}
