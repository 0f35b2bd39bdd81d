/* Decision-time search: determinised rollouts of the heuristic (perfect-information Monte
 * Carlo) for the seat on turn.
 *
 * A determinisation deals the cards the seat cannot see -- the other seats' hands less the
 * cards known to be in them (taken from the pile), the stock, and the feet not yet picked
 * up (the seat's own included) -- at random into the same places and sizes. What it reads
 * of the true state is only what the seat may see: the multiset of unseen cards is the
 * pack less everything visible to the seat (its hand, the table, the pile, the known
 * cards), and the sizes are public. Each legal action is then applied to the same
 * determinisations (common random numbers) and the hand played out by the heuristic
 * (core/heuristic.c) for all four seats, from each seat's own observation.
 *
 * Values are from the point of view of the searching seat's partnership: the hand score
 * difference in points (docs/RULES.md sections 2.15 and 3.9: the hand's score sheet, the
 * previous total excluded) and its sign (+1 / 0 / -1, the unit of duplicate evaluation).
 */
#include <stdlib.h>
#include <string.h>
#include "state.h"

void cn_determinise(cn_state *s, int seat, uint64_t *rng) {
    uint8_t pool[CN_MAXCARDS], rest[CN_MAXCARDS];
    int np = 0, nrest = 0, hidden[4], foot[4], count[CN_NC] = {0};
    /* the unseen cards as a multiset, laid out by class before the shuffle: the deal
     * depends on what the seat may know (which cards are unseen), never on where they
     * really lie */
    for (int o = 0; o < 4; o++) {
        hidden[o] = 0;
        foot[o] = 0;
        if (o != seat) {
            for (int c = 0; c < CN_NC; c++) {
                int k = s->hands[o][c] - s->known[o][c];
                if (k > 0) {
                    count[c] += k;
                    hidden[o] += k;
                }
            }
        }
        if (cn_foot_pending(s, o)) {
            for (int c = 0; c < CN_NC; c++) count[c] += s->feet[o][c];
            foot[o] = cn_sum(s->feet[o]);
        }
    }
    for (int i = 0; i < s->nstock; i++) count[s->stock[i]]++;
    for (int c = 0; c < CN_NC; c++)
        for (int i = 0; i < count[c]; i++) pool[np++] = (uint8_t)c;
    cn_shuffle(pool, np, rng);
    /* hands first, from the cards a hand can hold: a red 3 is never in a hand (it is laid
     * down when dealt, drawn or found in the foot: RULES.md §2.5); then the feet and the
     * stock from what is left, red 3s included, shuffled again */
    int k = 0;
    for (int o = 0; o < 4; o++) {
        if (o == seat || !hidden[o]) continue;
        for (int c = 0; c < CN_NC; c++)
            s->hands[o][c] = s->known[o][c] < s->hands[o][c] ? s->known[o][c] : s->hands[o][c];
        for (int i = 0; i < hidden[o]; k++) {
            if (pool[k] == CN_R3) {
                rest[nrest++] = pool[k];
            } else {
                s->hands[o][pool[k]]++;
                i++;
            }
        }
    }
    while (k < np) rest[nrest++] = pool[k++];
    cn_shuffle(rest, nrest, rng);
    k = 0;
    for (int o = 0; o < 4; o++) {
        if (!foot[o]) continue;
        memset(s->feet[o], 0, sizeof s->feet[o]);
        for (int i = 0; i < foot[o]; i++) s->feet[o][rest[k++]]++;
    }
    for (int i = 0; i < s->nstock; i++) s->stock[i] = rest[k++];
}

void cn_search_determinisation(cn_state *s, int seat, uint64_t seed, int d) {
    uint64_t rng = seed ^ (0xD1B54A32D192ED03ULL * (uint64_t)(d + 1));
    cn_determinise(s, seat, &rng);
}

static int rollout(cn_state *s, const float *scale, const cn_heur_params *p, int max_decisions) {
    float obs[CN_OBS_HF];
    int8_t mask[CN_MAXACTIONS];
    int lg[CN_MAXACTIONS];
    int na = s->o.num_actions, no = cn_obs_size(&s->o);
    for (int step = 0; s->phase < PH_HAND_OVER; step++) {
        if (step >= max_decisions) return 0;
        int n = cn_legal_actions(s, lg), a;
        if (n == 1) {
            a = lg[0];
        } else {
            memset(mask, 0, (size_t)na);
            for (int i = 0; i < n; i++) mask[lg[i]] = 1;
            cn_encode(s, cn_to_move(s), scale, obs);
            a = cn_heuristic_action(obs, no, mask, na, p);
            if (a < 0) return 0;
        }
        cn_apply(s, a);
    }
    return 1;
}

static int hand_score(const cn_state *s, int team) {
    /* one hand's rows: each within limits.HAND_POINTS_LIMIT, their sum inside 32 bits */
    const cn_score *sh = s->sheets[team];
    return (int)(sh[0] + sh[1] + sh[2] + sh[3] + sh[4]);
}

int cn_search_values(const cn_state *root, const int *legal, int n, int determinisations,
                     uint64_t seed, const float *scale, const cn_heur_params *p,
                     int max_decisions, int *out) {
    int seat = cn_to_move(root), team = seat & 1, done = 0;
    for (int i = 0; i < n * determinisations; i++) out[i] = CN_SEARCH_NONE;
    if (seat < 0) return 0;
    /* two states of several KB each: on the heap, one pair per call (no shared scratch,
     * so calls from several threads never meet) */
    cn_state *base = malloc(2 * sizeof *base), *s;
    if (base == NULL) return -1;
    s = base + 1;
    for (int d = 0; d < determinisations; d++) {
        *base = *root;
        cn_search_determinisation(base, seat, seed, d);
        for (int i = 0; i < n; i++) {
            *s = *base;
            cn_apply(s, legal[i]);
            if (!rollout(s, scale, p, max_decisions)) continue;
            out[i * determinisations + d] = hand_score(s, team) - hand_score(s, team ^ 1);
            done++;
        }
    }
    free(base);
    return done;
}
