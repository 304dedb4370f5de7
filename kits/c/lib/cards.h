/* Cards, in one place: the protocol's card ids, 4 * (rank - 2) + suit, the joker 52
 * (protocol/SPEC.md section 2), the same in every game. */
#ifndef KIT_CARDS_H
#define KIT_CARDS_H

#include <msgpack.h>

#define KIT_JOKER 52

int kit_card(const msgpack_object *wire);          /* the id of a wire card; -1: not one */
int kit_cards(const msgpack_object *array, int *out, int max); /* ids of an array; count */
int kit_rank(int id);                               /* 2..14 (ace 14); 0 for the joker */
int kit_suit(int id);                               /* 0..3 (c d h s); -1 for the joker */
int kit_card_of(int rank, int suit);

#endif
