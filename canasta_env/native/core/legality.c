/* The legal actions of the seat on turn, dispatched by phase.
 *
 * Mirrors canasta_env/engine/legality.py function by function (legal_draw, legal_takes,
 * _take_feasible, legal_meld, may_go_out_now, legal_answer). Every action listed leaves
 * the turn completable (completion.c). Rules: docs/RULES.md sections 2.3-2.14, 3.3-3.8, 5, 6.
 */
#include <string.h>
#include "state.h"

static const int TAKE_USE[5][3] = {{0, 0, 0}, {2, 0, 0}, {1, 1, 0}, {1, 0, 1}, {0, 0, 0}};

static void team_wild(const cn_state *s, int team, int *wild) {
    for (int r = 0; r < CN_NC; r++) wild[r] = s->jok[team][r] + s->two[team][r];
}

/* pile_rest(): start index into the pile of the cards a take brings besides the top */
static int pile_rest_start(const cn_state *s) {
    int k = s->o.pile_take_limit;
    if (!k) return 0;
    int st = s->npile - k;
    return st > 0 ? st : 0;
}

static int take_feasible(const cn_state *s, int seat, int top, int n, int j, int t, int wild_pair) {
    int team = seat & 1;
    int hand[CN_NC], nat[CN_NC], wild[CN_NC];
    memcpy(hand, s->hands[seat], sizeof hand);
    memcpy(nat, s->nat[team], sizeof nat);
    team_wild(s, team, wild);
    int wm = s->wild_meld[team][0] + s->wild_meld[team][1];
    hand[top] -= n;
    hand[CN_JOKER] -= j;
    hand[CN_TWO] -= t;
    if (wild_pair) {
        wm += n + 1;
    } else {
        nat[top] += n + 1;
        wild[top] += j + t;
    }
    int tp = (n + 1) * CN_POINTS[top] + j * CN_POINTS[CN_JOKER] + t * CN_POINTS[CN_TWO];
    int st = pile_rest_start(s), end = s->npile - 1;
    if (s->opened[team] || tp >= s->minimum[team]) {
        for (int i = st; i < end; i++)
            if (s->pile[i] != CN_R3) hand[s->pile[i]]++;
        return cn_turn_feasible(s, hand, nat, wild, s->opened[team] ? 0 : tp, 1, NULL, 0, 0,
                                NOT_ASKED, 0, wm);
    }
    int pend[CN_NC] = {0}, np = 0;
    for (int i = st; i < end; i++)
        if (s->pile[i] != CN_R3) {
            pend[s->pile[i]]++;
            np++;
        }
    return cn_turn_feasible(s, hand, nat, wild, tp, 1, pend, np, 0, NOT_ASKED, 0, wm);
}

static int pile_frozen_for(const cn_state *s, int team) { return s->pile_frozen || !s->opened[team]; }

static int legal_takes(const cn_state *s, int seat, int *out) {
    if (!s->npile) return 0;
    const cn_options *o = &s->o;
    int top = s->pile[s->npile - 1];
    int team = seat & 1;
    const int *hand = s->hands[seat];
    if (cn_is_wild(top) && o->pile_wild_pair) {
        if (hand[top] >= 2 &&
            cn_wild_meld_books(o, s->wild_meld[team][0] + s->wild_meld[team][1], 3) >= 0 &&
            take_feasible(s, seat, top, 2, 0, 0, 1)) {
            out[0] = A_TAKE_WILD_PAIR;
            return 1;
        }
        return 0;
    }
    if (cn_is_wild(top) || top == CN_B3 || top == CN_R3) return 0;
    if (o->one_card_pile_restriction && cn_sum(hand) == 1 && s->npile == 1) return 0;
    int frozen = pile_frozen_for(s, team);
    const int *nat = s->nat[team];
    int wildtop = s->jok[team][top] + s->two[team][top];
    int m = o->max_meld_size, k = 0;
    for (int kind = A_TAKE_PAIR; kind <= A_TAKE_ONTO_MELD; kind++) {
        if (kind != A_TAKE_PAIR && (frozen || o->pile_pair_only)) continue;
        int n = TAKE_USE[kind][0], j = TAKE_USE[kind][1], t = TAKE_USE[kind][2];
        if (hand[top] < n || hand[CN_JOKER] < j || hand[CN_TWO] < t) continue;
        if (kind == A_TAKE_ONTO_MELD && !nat[top]) continue;
        if ((j || t) && !cn_wild_ok(s, nat[top] + n + 1, wildtop + 1)) continue;
        if (m && nat[top] + wildtop + n + j + t + 1 > m) continue;
        if (take_feasible(s, seat, top, n, j, t, 0)) out[k++] = kind;
    }
    return k;
}

static int legal_draw(const cn_state *s, int *out) {
    int seat = s->current, team = seat & 1, k = 0;
    if (s->nstock) out[k++] = A_DRAW_STOCK;
    int takes[5];
    int nt = legal_takes(s, seat, takes);
    for (int i = 0; i < nt; i++) out[k++] = takes[i];
    if (!s->nstock) {
        int forced = 0;
        if (nt && s->npile) {
            int top = s->pile[s->npile - 1];
            forced = !pile_frozen_for(s, team) && s->nat[team][top] > 0;
        }
        if (!forced) out[k++] = A_DECLINE_PILE;
    }
    /* sort (at most 7 ids) */
    for (int i = 1; i < k; i++) {
        int v = out[i], j = i - 1;
        while (j >= 0 && out[j] > v) { out[j + 1] = out[j]; j--; }
        out[j + 1] = v;
    }
    return k;
}

static int may_go_out_now(const cn_state *s, int team) {
    const cn_options *o = &s->o;
    if (s->asked == ASKED_NO || s->no_discard) return 0;
    if (o->ask_partner_required && s->asked != ASKED_YES) return 0;
    if (cn_foot_pending(s, s->current)) return 0;
    int clean, dirty;
    cn_book_counts(s, team, &clean, &dirty);
    return clean + dirty >= o->canastas_to_go_out && clean >= o->clean_books_to_go_out &&
           dirty >= o->dirty_books_to_go_out;
}

static int sort_ids(int *ids, int k) {  /* insertion sort, ascending */
    for (int i = 1; i < k; i++) {
        int v = ids[i], j = i - 1;
        while (j >= 0 && ids[j] > v) { ids[j + 1] = ids[j]; j--; }
        ids[j + 1] = v;
    }
    return k;
}

typedef struct {
    const cn_state *s;
    int *hand, *nat, *wild;
    int tp0, opened, minimum, size, free_ok, free_keep;
    const int *pending;
    int npending;
} checker;

static int check(const checker *k, int delta_pts, int used, int wm) {
    int tp = k->tp0 + (k->opened ? 0 : delta_pts);
    if (k->free_ok && k->size - used >= k->free_keep && (k->opened || tp >= k->minimum)) return 1;
    const cn_state *s = k->s;
    return cn_turn_feasible(s, k->hand, k->nat, k->wild, tp, 1, k->pending, k->npending,
                            s->must_out, s->asked, s->drew_stock, wm);
}

static int legal_meld(const cn_state *s, int *legal) {
    const cn_options *o = &s->o;
    int seat = s->current, team = seat & 1;
    int hand[CN_NC], nat[CN_NC], wild[CN_NC];
    memcpy(hand, s->hands[seat], sizeof hand);
    memcpy(nat, s->nat[team], sizeof nat);
    team_wild(s, team, wild);
    int cap = o->max_wilds_per_meld;
    int pickup = s->phase == PH_PICKUP;
    int pend[CN_NC] = {0}, np = 0;
    if (pickup)
        for (int i = 0; i < s->npending; i++)
            if (s->pending[i] != CN_R3) {
                pend[s->pending[i]]++;
                np++;
            }
    int opened = s->opened[team];
    int size = cn_sum(hand);
    int k = 0;
    checker ck = {s, hand, nat, wild, s->turn_points, opened, s->minimum[team], size,
                  !s->must_out && s->asked != ASKED_YES && !pickup,
                  cn_foot_pending(s, seat) ? 0 : 2, pickup ? pend : NULL, np};
    int nj = hand[CN_JOKER], nt = hand[CN_TWO];
    for (int i = 0; i < CN_NRANKS; i++) {
        int r = CN_FOUR + i, n = hand[r], v = CN_POINTS[r];
        if (nat[r]) {
            int base = A_ADD_TO_MELD + 3 * i;
            int room = cn_wild_ok(s, nat[r], wild[r] + 1);
            if (n) {
                hand[r]--; nat[r]++;
                if (check(&ck, v, 1, -1)) legal[k++] = base;
                hand[r]++; nat[r]--;
            }
            if (room) {
                for (int kk = 1; kk <= 2; kk++) {
                    int c = kk == 1 ? CN_JOKER : CN_TWO;
                    if (hand[c]) {
                        hand[c]--; wild[r]++;
                        if (check(&ck, CN_POINTS[c], 1, -1)) legal[k++] = base + kk;
                        hand[c]++; wild[r]--;
                    }
                }
            }
        } else if (n >= 2) {
            int base = A_START_MELD + 3 * i;
            if (n >= 3) {
                hand[r] -= 3; nat[r] += 3;
                if (check(&ck, 3 * v, 3, -1)) legal[k++] = base;
                hand[r] += 3; nat[r] -= 3;
            }
            if (cap > 0) {
                for (int kk = 1; kk <= 2; kk++) {
                    int c = kk == 1 ? CN_JOKER : CN_TWO, cnt = kk == 1 ? nj : nt;
                    if (cnt) {
                        hand[r] -= 2; hand[c]--; nat[r] += 2; wild[r]++;
                        if (check(&ck, 2 * v + CN_POINTS[c], 3, -1)) legal[k++] = base + kk;
                        hand[r] += 2; hand[c]++; nat[r] -= 2; wild[r]--;
                    }
                }
            }
        }
    }
    if (o->wild_melds) {
        int wm = s->wild_meld[team][0] + s->wild_meld[team][1];
        if (wm) {
            if (!o->max_meld_size || wm < o->max_meld_size) {
                for (int kk = 0; kk <= 1; kk++) {
                    int c = kk == 0 ? CN_JOKER : CN_TWO;
                    if (hand[c]) {
                        hand[c]--;
                        if (check(&ck, CN_POINTS[c], 1, wm + 1)) legal[k++] = A_ADD_TO_WILD_MELD + kk;
                        hand[c]++;
                    }
                }
            }
        } else {
            static const int WK[4][2] = {{3, 0}, {2, 1}, {1, 2}, {0, 3}};
            for (int kk = 0; kk < 4; kk++) {
                int j = WK[kk][0], t = WK[kk][1];
                if (hand[CN_JOKER] >= j && hand[CN_TWO] >= t) {
                    hand[CN_JOKER] -= j; hand[CN_TWO] -= t;
                    if (check(&ck, j * CN_POINTS[CN_JOKER] + t * CN_POINTS[CN_TWO], j + t, j + t))
                        legal[k++] = A_START_WILD_MELD + kk;
                    hand[CN_JOKER] += j; hand[CN_TWO] += t;
                }
            }
        }
    }
    if (pickup) return sort_ids(legal, k);
    int tp0 = s->turn_points;
    /* black 3s: at most black_three_meld_max melded; one more can still be the discard */
    int b3 = hand[CN_B3];
    int b3_meld = b3 < o->black_three_meld_max ? b3 : o->black_three_meld_max;
    if (o->black_three_melds && b3 >= 3 && s->asked != ASKED_NO && !s->no_discard &&
        !s->must_out && !s->nat[team][CN_B3]) { /* one black-3 meld, once */
        hand[CN_B3] = b3 - b3_meld;
        nat[CN_B3] += b3_meld; /* the meld on the table: no second one (completion) */
        if (cn_turn_feasible(s, hand, nat, wild, tp0 + (opened ? 0 : 5 * b3_meld), 1, NULL, 0, 1,
                             s->asked, s->drew_stock, -1))
            legal[k++] = A_MELD_BLACK_THREES;
        nat[CN_B3] -= b3_meld;
        hand[CN_B3] = b3;
    }
    if (s->asked == NOT_ASKED && !s->no_discard && !s->must_out) {
        if (cn_turn_feasible(s, hand, nat, wild, tp0, s->laid, NULL, 0, 0, ASKED_NO,
                             s->drew_stock, -1) &&
            cn_turn_feasible(s, hand, nat, wild, tp0, s->laid, NULL, 0, 1, ASKED_YES,
                             s->drew_stock, -1))
            legal[k++] = A_ASK_PARTNER;
    }
    if (s->no_discard) {
        if (opened || !s->laid) legal[k++] = A_FINISH_TURN;
        return sort_ids(legal, k);
    }
    int opening_ok = opened || !s->laid;
    int disc = 0;
    if (size >= 2) {
        disc = opening_ok && !s->must_out && s->asked != ASKED_YES;
    } else if (size == 1 && cn_foot_pending(s, seat)) {
        disc = opening_ok && !s->must_out && s->asked != ASKED_YES;
    } else if (size == 1 && may_go_out_now(s, team)) {
        disc = opening_ok || s->drew_stock;
    }
    if (disc) {
        for (int c = 0; c < CN_NC; c++) {
            if (c == CN_R3 || !hand[c]) continue;
            legal[k++] = A_DISCARD + (c < CN_R3 ? c : c - 1);
        }
    }
    return sort_ids(legal, k);
}

int cn_legal_actions(const cn_state *s, int *out) {
    switch (s->phase) {
    case PH_DRAW: return legal_draw(s, out);
    case PH_MELD:
    case PH_PICKUP: return legal_meld(s, out);
    case PH_ANSWER:
        out[0] = A_ANSWER_YES;
        out[1] = A_ANSWER_NO;
        return 2;
    default: return 0;
    }
}
