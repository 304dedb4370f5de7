/* Polish Poker, `polacco` ruleset (52 cards). Treats each card a declaration lacks as
 * held by the others with the chance p = cards they hold / cards it cannot see, so a
 * declaration lacking n cards stands with about p^n. Calls one below even odds; else
 * raises to the weakest declaration at least as likely as not, or calls. */
#include <math.h>

#include "lib/polish.h"
#include "lib/referee.h"

#define DECK 52

static kit_ladder ladder;

static int act(const msgpack_object *view, const kit_game *game, msgpack_packer *pk,
               void *state) {
    (void)game, (void)state;
    int known[64], n = kit_known_cards(view, known, 64);
    double p = (double)kit_unseen(view) / (DECK - n);
    int last = kit_last_declaration(view);
    if (last >= ladder.n) return kit_fail("declaration %d is not on the ladder", last);
    if (last < 0) {
        kit_pack_raise(pk, kit_strongest_held(&ladder, known, n));
        return 0;
    }
    if (pow(p, kit_missing(&ladder, last, known, n)) < 0.5) {
        kit_pack_call(pk);
        return 0;
    }
    for (int id = 0; id < ladder.n; id++)
        if (ladder.d[id].strength > ladder.d[last].strength
            && pow(p, kit_missing(&ladder, id, known, n)) >= 0.5) {
            kit_pack_raise(pk, id);
            return 0;
        }
    kit_pack_call(pk);
    return 0;
}

int main(void) {
    kit_ladder_build(&ladder, 0);
    kit_bot bot = {.act = act, .name = "c-polacco"};
    return kit_run(&bot);
}
