/* For tests/kits/test_kit_ladders.py: the C kit's ladder of a ruleset (argv[1]: official
 * or polacco), then for each pool read from stdin (card ids, one pool a line) the cards
 * each declaration lacks. */
#include <stdio.h>
#include <string.h>

#include "lib/polish.h"

static const char *NAMES[] = {"high", "pair", "two-pair", "straight", "three", "full-house",
                              "flush", "four", "straight-flush", "royal-flush", "five"};

int main(int argc, char **argv) {
    static kit_ladder ladder;
    kit_ladder_build(&ladder, argc > 1 && strcmp(argv[1], "official") == 0);
    for (int i = 0; i < ladder.n; i++) {
        const kit_decl *d = &ladder.d[i];
        printf("%s %d %d %d %d %d\n", NAMES[d->category], d->nranks, d->ranks[0], d->ranks[1],
               d->suit, d->strength);
    }
    char line[512];
    while (fgets(line, sizeof line, stdin)) {
        int known[64], n = 0, used = 0, card;
        for (char *p = line; n < 64 && sscanf(p, "%d%n", &card, &used) == 1; p += used)
            known[n++] = card;
        for (int i = 0; i < ladder.n; i++) printf("%d ", kit_missing(&ladder, i, known, n));
        printf("\n");
    }
    return 0;
}
