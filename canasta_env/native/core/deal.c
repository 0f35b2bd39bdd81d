/* The deal: shuffle, hands (and feet), the upcard, red 3s replaced, the first turn.
 *
 * Mirrors canasta_env/engine/deal.py; rules: docs/RULES.md sections 2.2 and 3.1.
 * The shuffle differs: the native core uses its own generator (splitmix64 seeding a
 * xorshift-multiply stream, Fisher-Yates as Python's random.shuffle), so a native seed
 * deals different cards than the Python engine's random.Random(f"{seed}/hand/{n}").
 * Everything after the shuffle follows deal.py step by step.
 */
#include <string.h>
#include "state.h"

void cn_seed(cn_state *s, uint64_t seed) {
    s->rng = seed * 0x2545F4914F6CDD1DULL + 0x632BE59BD9B4E019ULL;
}

void cn_deal(cn_state *s) {
    const cn_options *o = &s->o;
    int n = 0;
    for (int c = 0; c < CN_NC; c++) {
        int k = c == CN_JOKER ? o->jokers : (c == CN_B3 || c == CN_R3) ? 2 * o->decks : 4 * o->decks;
        for (int i = 0; i < k; i++) s->stock[n++] = (uint8_t)c;
    }
    cn_shuffle(s->stock, n, &s->rng);
    s->nstock = n;
    s->npile = 0;
    memset(s->hands, 0, sizeof s->hands);
    memset(s->known, 0, sizeof s->known);
    memset(s->feet, 0, sizeof s->feet);
    memset(s->red3, 0, sizeof s->red3);
    memset(s->nat, 0, sizeof s->nat);
    memset(s->jok, 0, sizeof s->jok);
    memset(s->two, 0, sizeof s->two);
    memset(s->in_foot, 0, sizeof s->in_foot);
    memset(s->seat_melded, 0, sizeof s->seat_melded);
    memset(s->wild_meld, 0, sizeof s->wild_meld);
    s->nbooks[0] = s->nbooks[1] = 0;
    s->opened[0] = s->opened[1] = 0;
    s->minimum[0] = cn_minimum_for(o, s->scores[0], s->hand_number);
    s->minimum[1] = cn_minimum_for(o, s->scores[1], s->hand_number);
    s->pile_frozen = 0;
    s->went_out = -1;
    s->concealed = 0;
    s->has_sheets = 0;
    s->decisions = 0;
    s->nevents = 0;
    int first = (s->dealer + 1) & 3;
    for (int i = 0; i < o->hand_size * 4; i++) s->hands[(first + i) & 3][s->stock[--s->nstock]]++;
    for (int i = 0; i < o->foot_size * 4; i++) s->feet[(first + i) & 3][s->stock[--s->nstock]]++;
    /* Python's deal fails (IndexError) when a tiny pack runs out here; the native deal
     * stops turning cards / replacing red 3s instead */
    while (s->nstock > 0) {  /* the upcard: turn cards until a natural that is not a red 3 shows */
        int c = s->stock[--s->nstock];
        s->pile[s->npile++] = (uint8_t)c;
        if (cn_is_wild(c) || c == CN_R3) {
            s->pile_frozen = 1;
            continue;
        }
        break;
    }
    for (int k = 0; k < 4; k++) {
        int seat = (first + k) & 3;
        int *h = s->hands[seat];
        while (h[CN_R3]) {
            h[CN_R3]--;
            s->red3[seat]++;
            cn_event_add(s, EV_RED3, seat, 0);
            if (s->nstock > 0) h[s->stock[--s->nstock]]++;
        }
    }
    s->current = first;
    cn_start_turn(s);
    s->phase = PH_DRAW;
}

void cn_new_game_at(cn_state *s, uint64_t seed, int dealer, cn_score score0, cn_score score1,
                    int first_round) {
    cn_seed(s, seed);
    s->scores[0] = score0;
    s->scores[1] = score1;
    s->winner = -2;
    s->hand_number = first_round;
    s->dealer = dealer >= 0 ? (dealer & 3) : (int)cn_below(&s->rng, 4);
    cn_deal(s);
}

void cn_new_game(cn_state *s, uint64_t seed, int dealer) {
    cn_new_game_at(s, seed, dealer, 0, 0, 0);
}

int cn_next_hand(cn_state *s) {
    if (s->phase != PH_HAND_OVER) return -1;
    s->hand_number++;
    s->dealer = (s->dealer + 1) & 3;
    cn_deal(s);
    return 0;
}
