#include "cards.h"

#include <ctype.h>
#include <string.h>

#include "referee.h"

static const char RANKS[] = "23456789TJQKA";
static const char SUITS[] = "cdhs";

/* Games whose wire cards are text; every other game sends ids. */
static int text_game(const char *game) { return strcmp(game, "turkish-poker") == 0; }

static int parse_text(const char *p, size_t n) {
    char rank = n > 0 ? (char)toupper((unsigned char)p[0]) : 0;
    if (n == 3 && p[0] == '1' && p[1] == '0') {
        rank = 'T';
        p++;
        n--;
    }
    if (n != 2) return -1;
    if (rank == 'J' && tolower((unsigned char)p[1]) == 'k') return KIT_JOKER;
    const char *r = strchr(RANKS, rank), *s = strchr(SUITS, tolower((unsigned char)p[1]));
    if (rank == 0 || r == NULL || s == NULL || p[1] == 0) return -1;
    return 4 * (int)(r - RANKS) + (int)(s - SUITS);
}

int kit_card(const msgpack_object *wire) {
    if (wire == NULL) return -1;
    if (wire->type == MSGPACK_OBJECT_STR) return parse_text(wire->via.str.ptr, wire->via.str.size);
    int64_t id = kit_int(wire, -1);
    return id >= 0 && id <= KIT_JOKER ? (int)id : -1;
}

int kit_cards(const msgpack_object *array, int *out, int max) {
    int n = 0;
    for (size_t i = 0; i < kit_len(array) && n < max; i++) out[n++] = kit_card(kit_at(array, i));
    return n;
}

void kit_pack_card(msgpack_packer *pk, const char *game, int id) {
    if (!text_game(game)) {
        msgpack_pack_int(pk, id);
        return;
    }
    char text[3] = {'J', 'k', 0};
    if (id != KIT_JOKER) {
        text[0] = RANKS[id / 4];
        text[1] = SUITS[id % 4];
    }
    kit_pack_str(pk, text);
}

int kit_rank(int id) { return id == KIT_JOKER ? 0 : 2 + id / 4; }
int kit_suit(int id) { return id == KIT_JOKER ? -1 : id % 4; }
int kit_card_of(int rank, int suit) { return 4 * (rank - 2) + suit; }
