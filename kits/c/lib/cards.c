#include "cards.h"

#include "referee.h"

int kit_card(const msgpack_object *wire) {
    int64_t id = kit_int(wire, -1);
    return id >= 0 && id <= KIT_JOKER ? (int)id : -1;
}

int kit_cards(const msgpack_object *array, int *out, int max) {
    int n = 0;
    for (size_t i = 0; i < kit_len(array) && n < max; i++) out[n++] = kit_card(kit_at(array, i));
    return n;
}

int kit_rank(int id) { return id == KIT_JOKER ? 0 : 2 + id / 4; }
int kit_suit(int id) { return id == KIT_JOKER ? -1 : id % 4; }
int kit_card_of(int rank, int suit) { return 4 * (rank - 2) + suit; }
