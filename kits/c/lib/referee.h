/* The referee protocol (protocol/SPEC.md) for C bots: connect, hello, answer every
 * `act` with your bot's action until `bye`. Fill a kit_bot and call kit_run. */
#ifndef KIT_REFEREE_H
#define KIT_REFEREE_H

#include <msgpack.h>
#include <stddef.h>
#include <stdint.h>

/* The game being played, from `game_start`. */
typedef struct {
    char game[64];       /* "polish-poker", "turkish-poker", "six-card-golf" */
    int seat, players;
    uint64_t seed;       /* the bot's seed for this game */
} kit_game;

typedef struct {
    /* Pack the action for `view` (one msgpack map) with `pk` and return 0; or return
     * kit_fail("why") to send an error reply instead (a `malformed` fault). */
    int (*act)(const msgpack_object *view, const kit_game *game, msgpack_packer *pk,
               void *state);
    /* Optional hooks (NULL: none). `notice` is one of the game's notices to this seat;
     * `end` is the whole `game_end` message (places, scores, order). */
    void (*on_game_start)(const kit_game *game, void *state);
    void (*on_notice)(const msgpack_object *notice, const kit_game *game, void *state);
    void (*on_game_end)(const msgpack_object *end, const kit_game *game, void *state);
    void *state;
    const char *name;    /* optional, sent in hello */
} kit_bot;

/* Serve the referee until `bye`: 0 then, 1 with the reason on stderr otherwise. */
int kit_run(const kit_bot *bot);

/* Record why `act` has no action; returns -1 for `return kit_fail(...)`. */
int kit_fail(const char *fmt, ...);

/* Reading msgpack maps and arrays. */
const msgpack_object *kit_get(const msgpack_object *map, const char *key); /* NULL: absent */
int64_t kit_int(const msgpack_object *o, int64_t fallback);  /* fallback: not an integer */
int kit_is_nil(const msgpack_object *o);                     /* absent or nil */
int kit_str_is(const msgpack_object *o, const char *text);
size_t kit_len(const msgpack_object *array);                  /* 0: not an array */
const msgpack_object *kit_at(const msgpack_object *array, size_t i);

/* Writing: a string, and the common one- and two-field action maps. */
void kit_pack_str(msgpack_packer *pk, const char *text);
void kit_pack_kind(msgpack_packer *pk, const char *kind);
void kit_pack_kind_int(msgpack_packer *pk, const char *kind, const char *key, int64_t value);
void kit_pack_kind_str(msgpack_packer *pk, const char *kind, const char *key,
                       const char *value);

#endif
