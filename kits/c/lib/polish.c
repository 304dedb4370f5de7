#include "polish.h"

#include "cards.h"
#include "referee.h"

static const int OFFICIAL[] = {HIGH, PAIR, TWO_PAIR, STRAIGHT, THREE, FULL_HOUSE, FLUSH, FOUR,
                               STRAIGHT_FLUSH, ROYAL_FLUSH, FIVE, -1};
static const int POLACCO[] = {PAIR, TWO_PAIR, THREE, STRAIGHT, FLUSH, FULL_HOUSE, FOUR,
                              STRAIGHT_FLUSH, -1};
static const int OF_A_KIND[] = {[HIGH] = 1, [PAIR] = 2, [THREE] = 3, [FOUR] = 4, [FIVE] = 5};

static void add(kit_ladder *l, int category, int a, int b, int nranks, int suit) {
    kit_decl *d = &l->d[l->n];
    const kit_decl *prev = l->n ? &l->d[l->n - 1] : NULL;
    *d = (kit_decl){category, {a, b}, nranks, suit, 0};
    int same = prev && prev->category == category && prev->nranks == nranks
        && (nranks < 1 || prev->ranks[0] == a) && (nranks < 2 || prev->ranks[1] == b);
    d->strength = prev ? prev->strength + !same : 0;
    l->n++;
}

/* One category's declarations, weakest first (by ranks, then suit). */
static void add_category(kit_ladder *l, int c, int lo) {
    if (c == HIGH || c == PAIR || c == THREE || c == FOUR || c == FIVE) {
        for (int r = lo; r <= 14; r++) add(l, c, r, 0, 1, -1);
    } else if (c == TWO_PAIR || c == FULL_HOUSE) {
        for (int a = lo; a <= 14; a++)
            for (int b = lo; b <= 14; b++)
                if (c == TWO_PAIR ? b < a : b != a) add(l, c, a, b, 2, -1);
    } else if (c == STRAIGHT) {
        for (int t = l->official ? 13 : 5; t <= 14; t++) add(l, c, t, 0, 1, -1);
    } else if (l->official) {
        for (int s = 0; s < 4; s++) add(l, c, 0, 0, 0, s);
    } else {
        for (int t = c == FLUSH ? 6 : 5; t <= 14; t++)
            for (int s = 0; s < 4; s++) add(l, c, t, 0, 1, s);
    }
}

void kit_ladder_build(kit_ladder *l, int official) {
    l->n = 0;
    l->official = official;
    for (const int *c = official ? OFFICIAL : POLACCO; *c >= 0; c++)
        add_category(l, *c, official ? 9 : 2);
}

static int count_rank(const int *known, int n, int rank) {
    int k = 0;
    for (int i = 0; i < n; i++) k += kit_rank(known[i]) == rank;
    return k;
}

static int holds(const int *known, int n, int card) {
    for (int i = 0; i < n; i++)
        if (known[i] == card) return 1;
    return 0;
}

static int lack(const int *known, int n, int rank, int need) {
    int have = count_rank(known, n, rank);
    return have >= need ? 0 : need - have;
}

/* Ranks of a run of five topped by `top`; 5 is A-2-3-4-5. */
static int run_rank(int top, int i) {
    int r = top - 4 + i;
    return r == 1 ? 14 : r;
}

int kit_missing(const kit_ladder *l, int id, const int *known, int n) {
    const kit_decl *d = &l->d[id];
    int c = d->category, need = 0;
    if (c == HIGH || c == PAIR || c == THREE || c == FOUR || c == FIVE) {
        need = lack(known, n, d->ranks[0], OF_A_KIND[c]);
    } else if (c == TWO_PAIR || c == FULL_HOUSE) {
        need = lack(known, n, d->ranks[0], c == TWO_PAIR ? 2 : 3) + lack(known, n, d->ranks[1], 2);
    } else if (c == STRAIGHT) {
        for (int i = 0; i < 5; i++) need += lack(known, n, run_rank(d->ranks[0], i), 1);
    } else if (c == STRAIGHT_FLUSH || c == ROYAL_FLUSH) {
        int top = d->nranks ? d->ranks[0] : c == ROYAL_FLUSH ? 14 : 13;
        for (int i = 0; i < 5; i++) need += !holds(known, n, kit_card_of(run_rank(top, i), d->suit));
    } else {
        int suited = 0; /* official: any five of the suit; polacco: four below the top */
        for (int i = 0; i < n; i++)
            suited += kit_suit(known[i]) == d->suit && (!d->nranks || kit_rank(known[i]) < d->ranks[0]);
        int want = d->nranks ? 4 : 5;
        need = (suited >= want ? 0 : want - suited)
            + (d->nranks && !holds(known, n, kit_card_of(d->ranks[0], d->suit)));
    }
    if (l->official && holds(known, n, KIT_JOKER) && need > 0) need--; /* the joker fills one */
    return need;
}

int kit_strongest_held(const kit_ladder *l, const int *known, int n) {
    for (int id = l->n - 1; id > 0; id--)
        if (kit_missing(l, id, known, n) == 0) return id;
    return 0;
}

int kit_known_cards(const msgpack_object *view, int *out, int max) {
    int n = kit_cards(kit_get(view, "hand"), out, max);
    const msgpack_object *community = kit_get(view, "community");
    if (!kit_is_nil(community) && n < max) out[n++] = kit_card(community);
    return n;
}

int kit_unseen(const msgpack_object *view) {
    const msgpack_object *counts = kit_get(view, "counts");
    int total = 0;
    for (size_t i = 0; i < kit_len(counts); i++) total += (int)kit_int(kit_at(counts, i), 0);
    return total - (int)kit_len(kit_get(view, "hand"));
}

int kit_last_declaration(const msgpack_object *view) {
    const msgpack_object *history = kit_get(view, "history");
    size_t n = kit_len(history);
    return n ? (int)kit_int(kit_at(kit_at(history, n - 1), 1), -1) : -1;
}

void kit_pack_call(msgpack_packer *pk) { kit_pack_kind(pk, "call"); }
void kit_pack_raise(msgpack_packer *pk, int id) { kit_pack_kind_int(pk, "raise", "declaration", id); }
