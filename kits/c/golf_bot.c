/* Six-card golf (referee/games/six_card_golf/SPEC.md). Scores each row as it would lie
 * (a face-down card counted at its average, 5 points), takes the discard pile's card
 * when placing it gains 4 points or more, and puts a held card where it gains the
 * most, discarding a stock card that gains nothing. */
#include <stdio.h>

#include "lib/cards.h"
#include "lib/referee.h"

#define UNSEEN 5 /* a face-down card's expected points */
#define DOWN (-1)

static int points(int id) {
    int r = kit_rank(id);
    if (id == KIT_JOKER) return -3;
    return r == 13 ? 0 : r == 14 ? 1 : r > 10 ? 10 : r;
}

static int row_score(int a, int b) {
    if (a == DOWN || b == DOWN) return (a == DOWN ? UNSEEN : points(a)) + (b == DOWN ? UNSEEN : points(b));
    if (a == KIT_JOKER && b == KIT_JOKER) return -6;
    if (a != KIT_JOKER && kit_rank(a) == kit_rank(b)) return 0;
    return points(a) + points(b);
}

/* Points saved by putting `card` at row `r`, column `c` of `grid` (DOWN: face down). */
static int gain(const int grid[3][2], int r, int c, int card) {
    int after[2] = {grid[r][0], grid[r][1]};
    after[c] = card;
    return row_score(grid[r][0], grid[r][1]) - row_score(after[0], after[1]);
}

static void read_grid(const msgpack_object *view, int seat, int grid[3][2]) {
    const msgpack_object *mine = kit_at(kit_get(view, "grids"), (size_t)seat);
    for (int r = 0; r < 3; r++)
        for (int c = 0; c < 2; c++) {
            char at[5];
            snprintf(at, sizeof at, "r%dc%d", r, c);
            const msgpack_object *card = kit_get(mine, at);
            grid[r][c] = kit_is_nil(card) ? DOWN : kit_card(card);
        }
}

/* The best legal place for `card` (its position in `at`) and what it gains; -100: none. */
static int best_place(const msgpack_object *view, const int grid[3][2], int card,
                      int any, char at[5]) {
    const msgpack_object *legal = kit_get(view, "legal");
    int best = -100;
    for (int r = 0; r < 3; r++)
        for (int c = 0; c < 2; c++) {
            char pos[5];
            snprintf(pos, sizeof pos, "r%dc%d", r, c);
            int allowed = any;
            for (size_t i = 0; !allowed && i < kit_len(legal); i++)
                allowed = kit_str_is(kit_get(kit_at(legal, i), "at"), pos);
            int g = gain(grid, r, c, card);
            if (allowed && g > best) {
                best = g;
                snprintf(at, 5, "%s", pos);
            }
        }
    return best;
}

static int act(const msgpack_object *view, const kit_game *game, msgpack_packer *pk,
               void *state) {
    (void)state;
    int grid[3][2];
    char at[5] = "";
    read_grid(view, game->seat, grid);
    if (kit_str_is(kit_get(view, "phase"), "take")) {
        const msgpack_object *pile = kit_get(view, "discard");
        int top = kit_card(kit_at(pile, kit_len(pile) - 1));
        int worth = top >= 0 && best_place(view, grid, top, 1, at) >= 4;
        kit_pack_kind_str(pk, "take", "from", worth ? "discard-pile" : "stock");
        return 0;
    }
    int held = kit_card(kit_get(view, "drawn"));
    if (held < 0) return kit_fail("no card held in the place phase");
    int best = best_place(view, grid, held, 0, at);
    int may_discard = kit_str_is(kit_get(view, "drawn_from"), "stock");
    if (may_discard && best <= 0) kit_pack_kind(pk, "discard");
    else if (at[0]) kit_pack_kind_str(pk, "place", "at", at);
    else return kit_fail("no legal place");
    return 0;
}

int main(void) {
    kit_bot bot = {.act = act, .name = "c-golf"};
    return kit_run(&bot);
}
