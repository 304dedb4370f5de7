/* Turkish poker (referee/games/turkish_poker/SPEC.md). Rates its five cards by the
 * shape of their ranks and suits; opens with the least it may, bets strong hands,
 * calls middling ones when the price is at most half the pot, and draws to its pairs
 * (or to its best card). */
#include <string.h>

#include "lib/cards.h"
#include "lib/referee.h"

enum { NOTHING, ONE_PAIR, TWO_PAIRS, THREE, STRAIGHT, FLUSH, FULL_HOUSE, FOUR };

static int same_rank(const int *hand, int card) {
    int k = 0;
    for (int i = 0; i < 5; i++) k += kit_rank(hand[i]) == kit_rank(card);
    return k;
}

static int strength(const int *hand) {
    int pairs = 0, most = 0, flush = 1, lo = 14, hi = 0;
    for (int i = 0; i < 5; i++) {
        int k = same_rank(hand, hand[i]);
        most = k > most ? k : most;
        pairs += k == 2;
        flush &= kit_suit(hand[i]) == kit_suit(hand[0]);
        lo = kit_rank(hand[i]) < lo ? kit_rank(hand[i]) : lo;
        hi = kit_rank(hand[i]) > hi ? kit_rank(hand[i]) : hi;
    }
    if (most == 4) return FOUR;
    if (most == 3) return pairs ? FULL_HOUSE : THREE;
    if (flush) return FLUSH;
    if (most == 1 && hi - lo == 4) return STRAIGHT;
    return pairs == 4 ? TWO_PAIRS : pairs == 2 ? ONE_PAIR : NOTHING;
}

/* The legal entry of this kind; NULL: not legal now. */
static const msgpack_object *legal(const msgpack_object *view, const char *kind) {
    const msgpack_object *all = kit_get(view, "legal");
    for (size_t i = 0; i < kit_len(all); i++)
        if (kit_str_is(kit_get(kit_at(all, i), "kind"), kind)) return kit_at(all, i);
    return NULL;
}

/* Throw nothing from a made hand, else every card without a pair (four of five at most). */
static void draw(msgpack_packer *pk, const int *hand) {
    int out[5], n = 0, best = 0;
    for (int i = 0; i < 5 && strength(hand) < STRAIGHT; i++) {
        if (same_rank(hand, hand[i]) == 1) out[n++] = hand[i];
        if (kit_rank(hand[i]) > kit_rank(hand[best])) best = i;
    }
    if (n == 5) { /* keep the best card */
        for (int i = 0, j = 0; i < 5; i++)
            if (i != best) out[j++] = hand[i];
        n = 4;
    }
    msgpack_pack_map(pk, 2);
    kit_pack_str(pk, "kind");
    kit_pack_str(pk, "draw");
    kit_pack_str(pk, "cards");
    msgpack_pack_array(pk, n);
    for (int i = 0; i < n; i++) msgpack_pack_int(pk, out[i]);
}

static int act(const msgpack_object *view, const kit_game *game, msgpack_packer *pk,
               void *state) {
    (void)state;
    (void)game;
    int hand[5];
    if (kit_cards(kit_get(view, "cards"), hand, 5) != 5) return kit_fail("not five cards");
    int s = strength(hand);
    int64_t to_call = kit_int(kit_get(view, "to_call"), 0), pot = kit_int(kit_get(view, "pot"), 0);
    const msgpack_object *open = legal(view, "open"), *raise = legal(view, "raise");
    if (legal(view, "draw")) draw(pk, hand);
    else if (open) kit_pack_kind_int(pk, "open", "amount", kit_int(kit_get(open, "min"), 1));
    else if (s >= THREE && raise) kit_pack_kind_int(pk, "raise", "to", kit_int(kit_get(raise, "min"), 0));
    else if (legal(view, "pass")) kit_pack_kind(pk, "pass");
    else if (legal(view, "call") && (s >= TWO_PAIRS || (s >= ONE_PAIR && to_call * 2 <= pot)))
        kit_pack_kind(pk, "call");
    else kit_pack_kind(pk, "fold");
    return 0;
}

int main(void) {
    kit_bot bot = {.act = act, .name = "c-turkish"};
    return kit_run(&bot);
}
