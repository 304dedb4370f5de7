/* Polish Poker's declaration ladder (referee/games/polish_poker/SPEC.md) for both rulesets, and
 * how many cards a declaration still lacks in a set of known cards. Shared by the
 * `official` and `polacco` bots; a declaration's index is its wire id. */
#ifndef KIT_POLISH_H
#define KIT_POLISH_H

#include <msgpack.h>

enum { HIGH, PAIR, TWO_PAIR, STRAIGHT, THREE, FULL_HOUSE, FLUSH, FOUR, STRAIGHT_FLUSH,
       ROYAL_FLUSH, FIVE };

typedef struct {
    int category;       /* the enum above */
    int ranks[2], nranks;
    int suit;           /* 0..3, or -1 */
    int strength;       /* equal: equally strong (suits never add strength) */
} kit_decl;

#define KIT_LADDER_MAX 359
typedef struct {
    kit_decl d[KIT_LADDER_MAX];
    int n;
    int official;       /* 1: official (25 cards, joker), 0: polacco */
} kit_ladder;

void kit_ladder_build(kit_ladder *ladder, int official);
int kit_missing(const kit_ladder *ladder, int id, const int *known, int n);
/* The strongest declaration that `known` holds whole (0 when none does). */
int kit_strongest_held(const kit_ladder *ladder, const int *known, int n);
int kit_known_cards(const msgpack_object *view, int *out, int max); /* hand + community */
int kit_unseen(const msgpack_object *view);  /* cards the other seats hold */
int kit_last_declaration(const msgpack_object *view); /* -1: the round's first */
void kit_pack_call(msgpack_packer *pk);
void kit_pack_raise(msgpack_packer *pk, int id);

#endif
