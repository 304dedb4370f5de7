/* Polish Poker, `official` ruleset. Opens with the strongest declaration its own cards
 * prove; calls a declaration that lacks more cards than the others hold, or two or
 * more; otherwise raises to the weakest declaration its cards prove (or lack just one,
 * when they prove the last one), and calls when there is none. */
#include "lib/polish.h"
#include "lib/referee.h"

static kit_ladder ladder;

/* The weakest declaration stronger than `last` that lacks at most `most` cards; -1: none. */
static int weakest_above(int last, int most, const int *known, int n) {
    for (int id = 0; id < ladder.n; id++)
        if (ladder.d[id].strength > ladder.d[last].strength
            && kit_missing(&ladder, id, known, n) <= most)
            return id;
    return -1;
}

static int act(const msgpack_object *view, const kit_game *game, msgpack_packer *pk,
               void *state) {
    (void)game, (void)state;
    int known[32], n = kit_known_cards(view, known, 32);
    int last = kit_last_declaration(view);
    if (last < 0) {
        kit_pack_raise(pk, kit_strongest_held(&ladder, known, n));
        return 0;
    }
    if (last >= ladder.n) return kit_fail("declaration %d is not on the ladder", last);
    int lack = kit_missing(&ladder, last, known, n);
    int proven = weakest_above(last, 0, known, n), likely = weakest_above(last, 1, known, n);
    if (lack > kit_unseen(view) || lack >= 2) kit_pack_call(pk);
    else if (proven >= 0) kit_pack_raise(pk, proven);
    else if (lack == 0 && likely >= 0) kit_pack_raise(pk, likely);
    else kit_pack_call(pk);
    return 0;
}

int main(void) {
    kit_ladder_build(&ladder, 1);
    kit_bot bot = {.act = act, .name = "c-official"};
    return kit_run(&bot);
}
