/* Applying an action: the transitions of each phase.
 *
 * Mirrors canasta_env/engine/transitions.py function by function (apply, apply_draw,
 * collect_pile, lay, lay_wild, take_foot, hand_emptied, forget_played, apply_meld,
 * go_out). Assumes a legal action (the binding checks legality first).
 * Rules: docs/RULES.md sections 2.5, 2.7, 2.10-2.14 and 3.3-3.8.
 */
#include <string.h>
#include "state.h"

static void expose_red3(cn_state *s, int seat) {
    s->red3[seat]++;
    cn_event_add(s, EV_RED3, seat, 0);
}

static void lay(cn_state *s, int team, int rank, int n, int j, int t) {
    if (!s->nat[team][rank]) {
        s->new_ranks[s->n_new_ranks++] = rank;
    } else {
        int isnew = 0;
        for (int i = 0; i < s->n_new_ranks; i++)
            if (s->new_ranks[i] == rank) isnew = 1;
        if (!isnew) s->added_old = 1;
    }
    int *nat = s->nat[team], *jok = s->jok[team], *two = s->two[team];
    nat[rank] += n;
    jok[rank] += j;
    two[rank] += t;
    int m = s->o.max_meld_size;
    if (m && nat[rank] + jok[rank] + two[rank] >= m) {
        if (s->nbooks[team] < CN_MAXBOOKS) {
            uint8_t *b = s->books[team][s->nbooks[team]++];
            b[0] = (uint8_t)rank; b[1] = (uint8_t)nat[rank];
            b[2] = (uint8_t)jok[rank]; b[3] = (uint8_t)two[rank];
        }
        cn_event_add(s, EV_BOOK, team, rank);
        nat[rank] = jok[rank] = two[rank] = 0;
    }
}

static void lay_wild(cn_state *s, int team, int j, int t) {
    int *wm = s->wild_meld[team];
    wm[0] += j;
    wm[1] += t;
    int m = s->o.max_meld_size;
    if (m && wm[0] + wm[1] >= m) {
        if (s->nbooks[team] < CN_MAXBOOKS) {
            uint8_t *b = s->books[team][s->nbooks[team]++];
            b[0] = CN_JOKER; b[1] = 0; b[2] = (uint8_t)wm[0]; b[3] = (uint8_t)wm[1];
        }
        cn_event_add(s, EV_BOOK, team, CN_JOKER);
        wm[0] = wm[1] = 0;
    }
}

static void take_foot(cn_state *s, int seat) {
    int *hand = s->hands[seat], *foot = s->feet[seat];
    for (int c = 0; c < CN_NC; c++) {
        hand[c] += foot[c];
        foot[c] = 0;
    }
    s->in_foot[seat] = 1;
    cn_event_add(s, EV_FOOT, seat, 0);
    while (hand[CN_R3]) {
        hand[CN_R3]--;
        expose_red3(s, seat);
        if (s->nstock) hand[s->stock[--s->nstock]]++;
    }
}

static void go_out(cn_state *s, int seat) {
    int team = seat & 1, size = s->o.canasta_size;
    s->opened[team] = 1;
    int concealed = 0;
    if (!s->seat_melded[seat] && !s->added_old) {
        for (int i = 0; i < s->n_new_ranks; i++) {
            int r = s->new_ranks[i];
            if (s->nat[team][r] + s->jok[team][r] + s->two[team][r] >= size) concealed = 1;
        }
    }
    s->went_out = seat;
    s->concealed = concealed;
    s->seat_melded[seat] = 1;
    cn_event_add(s, EV_OUT, seat, concealed);
    cn_end_hand(s);
}

static void hand_emptied(cn_state *s, int seat) {
    if (cn_foot_pending(s, seat)) take_foot(s, seat);
    else go_out(s, seat);
}

static void forget_played(cn_state *s, int seat, const int *before) {
    int *k = s->known[seat];
    int any = 0;
    for (int c = 0; c < CN_NC; c++) any |= k[c];
    if (!any) return;
    const int *h = s->hands[seat];
    for (int c = 0; c < CN_NC; c++) {
        int played = before[c] - h[c];
        if (played > 0 && k[c]) k[c] = k[c] - played > 0 ? k[c] - played : 0;
    }
}

static void collect_pile(cn_state *s) {
    int seat = s->current, team = seat & 1;
    s->opened[team] = 1;
    int *hand = s->hands[seat], *known = s->known[seat];
    for (int i = 0; i < s->npending; i++) {
        int c = s->pending[i];
        if (c == CN_R3) {
            expose_red3(s, seat);
        } else {
            hand[c]++;
            known[c]++;
        }
    }
    s->npending = 0;
    s->phase = PH_MELD;
}

static int hand_empty(const int *h) {
    for (int c = 0; c < CN_NC; c++)
        if (h[c]) return 0;
    return 1;
}

static void apply_draw(cn_state *s, int action) {
    int seat = s->current;
    int *hand = s->hands[seat];
    if (action == A_DRAW_STOCK) {
        s->drew_stock = 1;
        for (int i = 0; i < s->o.draw_count; i++) {
            if (!s->nstock) break;
            for (;;) {
                int c = s->stock[--s->nstock];
                if (c != CN_R3) {
                    hand[c]++;
                    break;
                }
                expose_red3(s, seat);
                if (!s->nstock) {
                    if (s->o.red_three_last_card_may_meld) {
                        s->no_discard = 1;
                        s->phase = PH_MELD;
                        return;
                    }
                    cn_end_hand(s);
                    return;
                }
            }
        }
        s->phase = PH_MELD;
        return;
    }
    if (action == A_DECLINE_PILE) {
        cn_event_add(s, EV_DECLINED, seat, 0);
        cn_end_hand(s);
        return;
    }
    int team = seat & 1;
    int before[CN_NC];
    memcpy(before, hand, sizeof before);
    int k = s->o.pile_take_limit;
    int st = 0;
    if (k) st = s->npile - k > 0 ? s->npile - k : 0;
    int top = s->pile[--s->npile];
    int nrest = s->npile - st;
    int n, j, t;
    if (action == A_TAKE_WILD_PAIR) {
        n = 2; j = 0; t = 0;
        hand[top] -= 2;
        lay_wild(s, team, top == CN_JOKER ? 3 : 0, top == CN_TWO ? 3 : 0);
    } else {
        static const int USE[5][3] = {{0, 0, 0}, {2, 0, 0}, {1, 1, 0}, {1, 0, 1}, {0, 0, 0}};
        n = USE[action][0]; j = USE[action][1]; t = USE[action][2];
        hand[top] -= n;
        hand[CN_JOKER] -= j;
        hand[CN_TWO] -= t;
        lay(s, team, top, n + 1, j, t);
    }
    forget_played(s, seat, before);
    s->laid = 1;
    if (!s->opened[team])
        s->turn_points += (n + 1) * CN_POINTS[top] + j * CN_POINTS[CN_JOKER] + t * CN_POINTS[CN_TWO];
    memcpy(s->pending, s->pile + st, (size_t)nrest);
    s->npending = nrest;
    s->npile = st;
    s->pile_frozen = 0;
    for (int i = 0; i < s->npile; i++)
        if (cn_is_wild(s->pile[i]) || s->pile[i] == CN_R3) s->pile_frozen = 1;
    if (s->opened[team] || s->turn_points >= s->minimum[team]) {
        collect_pile(s);
        if (hand_empty(hand)) hand_emptied(s, seat);
    } else {
        s->phase = PH_PICKUP;
    }
}

static void apply_meld(cn_state *s, int action) {
    int seat = s->current, team = seat & 1;
    int *hand = s->hands[seat];
    int before[CN_NC];
    memcpy(before, hand, sizeof before);
    int pts;
    if (action >= A_DISCARD && action < A_NUM_CLASSIC) {
        int j = action - A_DISCARD;
        int c = j < CN_R3 ? j : j + 1;
        hand[c]--;
        forget_played(s, seat, before);
        s->pile[s->npile++] = (uint8_t)c;
        if (cn_is_wild(c) || (c == CN_B3 && s->o.black_three_freezes)) s->pile_frozen = 1;
        if (hand_empty(hand) && !cn_foot_pending(s, seat)) {
            go_out(s, seat);
        } else {
            if (s->laid) s->seat_melded[seat] = 1;
            int nxt = (seat + 1) & 3;
            s->current = nxt;
            cn_start_turn(s);
            s->phase = PH_DRAW;
            if (cn_foot_pending(s, nxt) && hand_empty(s->hands[nxt])) take_foot(s, nxt);
        }
        return;
    }
    if (action == A_ASK_PARTNER) {
        s->phase = PH_ANSWER;
        return;
    }
    if (action == A_FINISH_TURN) {
        cn_end_hand(s);
        return;
    }
    if (action >= A_START_WILD_MELD) {
        int j, t;
        if (action < A_ADD_TO_WILD_MELD) {
            static const int WK[4][2] = {{3, 0}, {2, 1}, {1, 2}, {0, 3}};
            j = WK[action - A_START_WILD_MELD][0];
            t = WK[action - A_START_WILD_MELD][1];
        } else {
            j = action == A_ADD_TO_WILD_MELD;
            t = !j;
        }
        hand[CN_JOKER] -= j;
        hand[CN_TWO] -= t;
        lay_wild(s, team, j, t);
        pts = j * CN_POINTS[CN_JOKER] + t * CN_POINTS[CN_TWO];
    } else if (action == A_MELD_BLACK_THREES) {
        int b3 = hand[CN_B3] < s->o.black_three_meld_max ? hand[CN_B3]
                                                           : s->o.black_three_meld_max;
        hand[CN_B3] -= b3;
        lay(s, team, CN_B3, b3, 0, 0);
        pts = 5 * b3;
        s->must_out = 1;
    } else if (action >= A_ADD_TO_MELD) {
        int i = (action - A_ADD_TO_MELD) / 3, k = (action - A_ADD_TO_MELD) % 3;
        int r = CN_FOUR + i;
        int c = k == 0 ? r : k == 1 ? CN_JOKER : CN_TWO;
        hand[c]--;
        lay(s, team, r, k == 0, k == 1, k == 2);
        pts = CN_POINTS[c];
    } else {
        int i = (action - A_START_MELD) / 3, k = (action - A_START_MELD) % 3;
        int r = CN_FOUR + i;
        if (k == 0) {
            hand[r] -= 3;
            lay(s, team, r, 3, 0, 0);
            pts = 3 * CN_POINTS[r];
        } else {
            int w = k == 1 ? CN_JOKER : CN_TWO;
            hand[r] -= 2;
            hand[w]--;
            lay(s, team, r, 2, k == 1, k == 2);
            pts = 2 * CN_POINTS[r] + CN_POINTS[w];
        }
    }
    forget_played(s, seat, before);
    s->laid = 1;
    if (!s->opened[team]) {
        s->turn_points += pts;
        if (s->turn_points >= s->minimum[team]) {
            if (s->phase == PH_PICKUP) collect_pile(s);
            else s->opened[team] = 1;
        }
    }
    if (s->phase == PH_MELD && hand_empty(hand)) hand_emptied(s, seat);
}

void cn_apply(cn_state *s, int action) {
    s->nevents = 0;
    s->decisions++;
    if (s->phase == PH_DRAW) {
        apply_draw(s, action);
    } else if (s->phase == PH_ANSWER) {
        s->asked = action == A_ANSWER_YES ? ASKED_YES : ASKED_NO;
        s->phase = PH_MELD;
    } else {
        apply_meld(s, action);
    }
}
