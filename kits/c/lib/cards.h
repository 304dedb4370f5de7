/* Cards, in one place: every game's wire form <-> one card id, 4 * (rank - 2) + suit,
 * the joker 52 (referee/games/polish_poker/SPEC.md). Turkish poker sends cards as text ("Ah"),
 * the other games as these ids; a bot works with ids only and converts at the edge. */
#ifndef KIT_CARDS_H
#define KIT_CARDS_H

#include <msgpack.h>

#define KIT_JOKER 52

int kit_card(const msgpack_object *wire);          /* the id of a wire card; -1: not one */
int kit_cards(const msgpack_object *array, int *out, int max); /* ids of an array; count */
void kit_pack_card(msgpack_packer *pk, const char *game, int id); /* as `game` sends it */
int kit_rank(int id);                               /* 2..14 (ace 14); 0 for the joker */
int kit_suit(int id);                               /* 0..3 (c d h s); -1 for the joker */
int kit_card_of(int rank, int suit);

#endif
