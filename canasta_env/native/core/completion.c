/* Can the turn on the table still be completed? The check behind "no dead ends".
 *
 * Mirrors canasta_env/engine/completion.py function by function (turn_feasible,
 * _pickup_search, close_melds, turn_feasible_exact, meld_moves, _pickup_search_exact).
 * The Python searches remember the positions already seen in a set; here a small table
 * of seen keys does the same (when it fills up the search goes on without it: slower,
 * same answer). Rules: docs/RULES.md sections 2.8, 2.10-2.12, 3.4-3.8 and 6.
 *
 * pending (phase PICKUP) is a count vector of the set-aside pile without red 3s and
 * npending its number of cards; NULL outside PICKUP. wm < 0 means "as on the table".
 */
#include <stdlib.h>
#include <string.h>
#include "state.h"

/* ------------------------------------------------------------------ seen-key table */
#define KEYLEN 52
#define SEEN_SLOTS 4096
typedef struct {
    int n;
    unsigned char used[SEEN_SLOTS];
    unsigned char keys[SEEN_SLOTS][KEYLEN];
} seen_t;

static void make_key(unsigned char *k, const int *hand, const int *nat, const int *wild, int wm,
                     int e0, int e1) {
    memset(k, 0, KEYLEN);
    for (int c = 0; c < CN_NC; c++) {
        k[c] = (unsigned char)hand[c];
        k[15 + c] = (unsigned char)nat[c];
        k[30 + c] = (unsigned char)wild[c];
    }
    k[45] = (unsigned char)wm;
    k[46] = (unsigned char)e0;
    k[47] = (unsigned char)e1;
    /* counts are below 256: a pack holds at most 40 cards of a class */
}

/* 1 if the key was seen, else records it (when there is room) and returns 0 */
static int seen_check(seen_t *S, const unsigned char *k) {
    if (!S) return 0;
    uint64_t h = 1469598103934665603ULL;
    for (int i = 0; i < KEYLEN; i++) h = (h ^ k[i]) * 1099511628211ULL;
    unsigned idx = (unsigned)(h % SEEN_SLOTS);
    for (int probe = 0; probe < SEEN_SLOTS; probe++) {
        unsigned j = (idx + probe) % SEEN_SLOTS;
        if (!S->used[j]) {
            if (S->n >= SEEN_SLOTS / 2) return 0;  /* full enough: stop remembering */
            S->used[j] = 1;
            memcpy(S->keys[j], k, KEYLEN);
            S->n++;
            return 0;
        }
        if (memcmp(S->keys[j], k, KEYLEN) == 0) return 1;
    }
    return 0;
}

static seen_t *seen_new(void) {
    seen_t *S = (seen_t *)malloc(sizeof(seen_t));
    if (S) {
        S->n = 0;
        memset(S->used, 0, sizeof S->used);
    }
    return S;
}

static int feasible_exact(const cn_state *s, int *hand, const int *nat, const int *wild, int tp,
                          int laid, const int *pending, int npending, int must_out, int asked,
                          int drew_stock, int wm, int e0, int e1);

/* ------------------------------------------------------------------ Classic */
static int pickup_search(const cn_state *s, int *hand, int *nat, int *wild, int tp,
                         const int *pending, int npending, seen_t *S) {
    unsigned char key[KEYLEN];
    make_key(key, hand, nat, wild, 0, 0, 0);
    if (seen_check(S, key)) return 0;
    int cap = s->o.max_wilds_per_meld;
    int minimum = s->minimum[s->current & 1];
    for (int r = CN_FOUR; r <= CN_ACE; r++) {
        int pn[3], pw[3], np = 0;  /* plays: (naturals, wild class or -1) */
        if (nat[r]) {
            pn[np] = 1; pw[np++] = -1;
            if (wild[r] < cap) {
                pn[np] = 0; pw[np++] = CN_JOKER;
                pn[np] = 0; pw[np++] = CN_TWO;
            }
        } else {
            pn[np] = 3; pw[np++] = -1;
            if (cap > 0) {
                pn[np] = 2; pw[np++] = CN_JOKER;
                pn[np] = 2; pw[np++] = CN_TWO;
            }
        }
        for (int i = 0; i < np; i++) {
            int n_nat = pn[i], w = pw[i];
            if (hand[r] < n_nat || (w >= 0 && !hand[w])) continue;
            int pts = n_nat * CN_POINTS[r];
            hand[r] -= n_nat;
            nat[r] += n_nat;
            if (w >= 0) {
                pts += CN_POINTS[w];
                hand[w]--;
                wild[r]++;
            }
            int ok;
            if (tp + pts >= minimum)
                ok = cn_turn_feasible(s, hand, nat, wild, tp + pts, 1, pending, npending, 0,
                                      NOT_ASKED, 0, -1);
            else
                ok = pickup_search(s, hand, nat, wild, tp + pts, pending, npending, S);
            hand[r] += n_nat;
            nat[r] -= n_nat;
            if (w >= 0) {
                hand[w]++;
                wild[r]--;
            }
            if (ok) return 1;
        }
    }
    return 0;
}

int cn_turn_feasible(const cn_state *s, int *hand, const int *nat, const int *wild, int tp,
                     int laid, const int *pending, int npending, int must_out, int asked,
                     int drew_stock, int wm) {
    const cn_options *o = &s->o;
    if (o->exact)
        return feasible_exact(s, hand, nat, wild, tp, laid, pending, npending, must_out, asked,
                              drew_stock, wm, 0, 0);
    int team = s->current & 1;
    int cap = o->max_wilds_per_meld;
    int minimum = s->minimum[team];
    int opened = s->opened[team] || (laid && tp >= minimum);
    int need = opened ? 0 : minimum - tp;
    int csize = o->canasta_size;
    if (pending) {
        int full[CN_NC];
        for (int c = 0; c < CN_NC; c++) full[c] = hand[c] + pending[c];
        if (opened)
            return cn_turn_feasible(s, full, nat, wild, tp, 1, NULL, 0, 0, NOT_ASKED, 0, -1);
        int keep = 2 - npending > 0 ? 2 - npending : 0;
        if (cn_best_points(hand, nat, wild, cap, keep) >= need) return 1;
        if (npending >= 2) return 0;
        int have = 0;
        for (int r = CN_FOUR; r <= CN_ACE; r++)
            if (nat[r] && nat[r] + wild[r] >= csize) have++;
        if (!cn_can_go_out(full, nat, wild, cap, csize, have, o->canastas_to_go_out, 0, 1,
                           o->black_three_melds && !nat[CN_B3], o->black_three_meld_max))
            return 0;
        int h2[CN_NC], n2[CN_NC], w2[CN_NC];
        memcpy(h2, hand, sizeof h2);
        memcpy(n2, nat, sizeof n2);
        memcpy(w2, wild, sizeof w2);
        seen_t *S = seen_new();
        int ok = pickup_search(s, h2, n2, w2, tp, pending, npending, S);
        free(S);
        return ok;
    }
    int size = cn_sum(hand);
    if (!must_out && asked != ASKED_YES) {
        int keep = s->no_discard ? 1 : 2;
        if (size >= keep && (opened || !laid || cn_best_points(hand, nat, wild, cap, keep) >= need))
            return 1;
    }
    if (s->no_discard || asked == ASKED_NO) return 0;
    if (o->ask_partner_required && asked != ASKED_YES) return 0;
    int have = 0;
    for (int r = CN_FOUR; r <= CN_ACE; r++)
        if (nat[r] && nat[r] + wild[r] >= csize) have++;
    if (size == 0) return have >= o->canastas_to_go_out && (opened || drew_stock);
    int need_b = (opened || drew_stock) ? 0 : need;
    return cn_can_go_out(hand, nat, wild, cap, csize, have, o->canastas_to_go_out, need_b, 1,
                         o->black_three_melds && !nat[CN_B3], o->black_three_meld_max);
}

/* ------------------------------------------------------------------ exact meld rules */
static void close_melds(const cn_state *s, int team, const int *nat, const int *wild, int wm,
                        int e0, int e1, int *nat2, int *wild2, int *wm2, int *clean, int *dirty) {
    int m = s->o.max_meld_size, c, d;
    cn_closed_books(s, team, &c, &d);
    c += e0;
    d += e1;
    memcpy(nat2, nat, sizeof(int) * CN_NC);
    memcpy(wild2, wild, sizeof(int) * CN_NC);
    if (m) {
        for (int r = CN_FOUR; r <= CN_ACE; r++) {
            if (nat2[r] && nat2[r] + wild2[r] >= m) {
                if (wild2[r]) d++;
                else c++;
                nat2[r] = wild2[r] = 0;
            }
        }
        if (wm >= m) {
            c++;
            wm = 0;
        }
    }
    *wm2 = wm;
    *clean = c;
    *dirty = d;
}

static int pickup_search_exact(const cn_state *s, const int *hand, const int *nat,
                               const int *wild, int wm, int tp, const int *pending, int npending,
                               int e0, int e1, seen_t *S);

static int feasible_exact(const cn_state *s, int *hand, const int *nat_in, const int *wild_in,
                          int tp, int laid, const int *pending, int npending, int must_out,
                          int asked, int drew_stock, int wm, int e0, int e1) {
    const cn_options *o = &s->o;
    int seat = s->current, team = seat & 1;
    if (wm < 0) wm = s->wild_meld[team][0] + s->wild_meld[team][1];
    int nat[CN_NC], wild[CN_NC], have_c, have_d;
    close_melds(s, team, nat_in, wild_in, wm, e0, e1, nat, wild, &wm, &have_c, &have_d);
    int minimum = s->minimum[team];
    int opened = s->opened[team] || (laid && tp >= minimum);
    int need = opened ? 0 : minimum - tp;
    int foot = cn_foot_pending(s, seat);
    if (pending) {
        int full[CN_NC];
        for (int c = 0; c < CN_NC; c++) full[c] = hand[c] + pending[c];
        int b0, b1;
        cn_closed_books(s, team, &b0, &b1);
        if (opened)
            return feasible_exact(s, full, nat, wild, tp, 1, NULL, 0, 0, NOT_ASKED, 0, wm,
                                  have_c - b0, have_d - b1);
        int keep = foot ? 0 : (2 - npending > 0 ? 2 - npending : 0);
        if (cn_max_points(hand, nat, wild, wm, o, keep) >= need) return 1;
        if (foot || npending >= 2) return 0;
        seen_t *S = seen_new();
        int ok = pickup_search_exact(s, hand, nat, wild, wm, tp, pending, npending, have_c - b0,
                                     have_d - b1, S);
        free(S);
        return ok;
    }
    int size = cn_sum(hand);
    if (foot) {
        if (must_out || asked == ASKED_YES) return 0;
        if (opened) return 1;
        if (!laid) return size >= 1;
        return cn_max_points(hand, nat, wild, wm, o, 0) >= need;
    }
    if (!must_out && asked != ASKED_YES) {
        int keep = s->no_discard ? 1 : 2;
        if (size >= keep && (opened || !laid || cn_max_points(hand, nat, wild, wm, o, keep) >= need))
            return 1;
    }
    if (s->no_discard || asked == ASKED_NO) return 0;
    if (o->ask_partner_required && asked != ASKED_YES) return 0;
    if (size == 0) {
        for (int r = CN_FOUR; r <= CN_ACE; r++) {
            if (nat[r] && nat[r] + wild[r] >= o->canasta_size) {
                if (wild[r]) have_d++;
                else have_c++;
            }
        }
        return have_c >= o->clean_books_to_go_out && have_d >= o->dirty_books_to_go_out &&
               have_c + have_d >= o->canastas_to_go_out && (opened || drew_stock);
    }
    int need_b = (opened || drew_stock) ? 0 : need;
    int b3 = o->black_three_melds && !nat[CN_B3]; /* one black-3 meld (RULES.md 2.6) */
    if (cn_can_meld_all(hand, nat, wild, wm, o, have_c, have_d, o->clean_books_to_go_out,
                        o->dirty_books_to_go_out, o->canastas_to_go_out, need_b, b3))
        return 1;
    for (int c = 0; c < CN_NC; c++) {
        if (hand[c] && c != CN_R3) {
            hand[c]--;
            int ok = cn_can_meld_all(hand, nat, wild, wm, o, have_c, have_d,
                                     o->clean_books_to_go_out, o->dirty_books_to_go_out,
                                     o->canastas_to_go_out, need_b, b3);
            hand[c]++;
            if (ok) return 1;
        }
    }
    return 0;
}

/* meld_moves: (rank or -1 for the wild meld, naturals, jokers, twos) */
static int meld_moves(const cn_state *s, const int *hand, const int *nat, const int *wild, int wm,
                      int (*out)[4]) {
    const cn_options *o = &s->o;
    int m = o->max_meld_size, cap = o->max_wilds_per_meld, k = 0;
#define MV(a, b, c, d) do { out[k][0] = (a); out[k][1] = (b); out[k][2] = (c); out[k][3] = (d); k++; } while (0)
    for (int r = CN_FOUR; r <= CN_ACE; r++) {
        int n = nat[r], w = wild[r];
        if (n) {
            if (hand[r]) MV(r, 1, 0, 0);
            int lim = o->wilds_at_most_half_naturals ? (cap < n / 2 ? cap : n / 2) : cap;
            if (w + 1 <= lim) {
                if (hand[CN_JOKER]) MV(r, 0, 1, 0);
                if (hand[CN_TWO]) MV(r, 0, 0, 1);
            }
        } else if (hand[r] >= 2) {
            if (hand[r] >= 3) MV(r, 3, 0, 0);
            if (cap > 0) {
                if (hand[CN_JOKER]) MV(r, 2, 1, 0);
                if (hand[CN_TWO]) MV(r, 2, 0, 1);
            }
        }
    }
    if (o->wild_melds) {
        if (wm) {
            if (!m || wm < m) {
                if (hand[CN_JOKER]) MV(-1, 0, 1, 0);
                if (hand[CN_TWO]) MV(-1, 0, 0, 1);
            }
        } else {
            static const int WK[4][2] = {{3, 0}, {2, 1}, {1, 2}, {0, 3}};
            for (int i = 0; i < 4; i++)
                if (hand[CN_JOKER] >= WK[i][0] && hand[CN_TWO] >= WK[i][1])
                    MV(-1, 0, WK[i][0], WK[i][1]);
        }
    }
#undef MV
    return k;
}

static int pickup_search_exact(const cn_state *s, const int *hand, const int *nat,
                               const int *wild, int wm, int tp, const int *pending, int npending,
                               int e0, int e1, seen_t *S) {
    unsigned char key[KEYLEN];
    make_key(key, hand, nat, wild, wm, e0 + 100, e1 + 100);
    if (seen_check(S, key)) return 0;
    int team = s->current & 1, b0, b1;
    cn_closed_books(s, team, &b0, &b1);
    int minimum = s->minimum[team];
    int mv[64][4];
    int nm = meld_moves(s, hand, nat, wild, wm, mv);
    for (int i = 0; i < nm; i++) {
        int r = mv[i][0], n = mv[i][1], j = mv[i][2], t = mv[i][3];
        int h2[CN_NC], n2[CN_NC], w2[CN_NC], n3[CN_NC], w3[CN_NC], wm2 = wm, wm3, c, d;
        memcpy(h2, hand, sizeof h2);
        memcpy(n2, nat, sizeof n2);
        memcpy(w2, wild, sizeof w2);
        h2[CN_JOKER] -= j;
        h2[CN_TWO] -= t;
        int pts = j * CN_POINTS[CN_JOKER] + t * CN_POINTS[CN_TWO];
        if (r < 0) {
            wm2 += j + t;
        } else {
            h2[r] -= n;
            n2[r] += n;
            w2[r] += j + t;
            pts += n * CN_POINTS[r];
        }
        close_melds(s, team, n2, w2, wm2, e0, e1, n3, w3, &wm3, &c, &d);
        int ok;
        if (tp + pts >= minimum)
            ok = feasible_exact(s, h2, n3, w3, tp + pts, 1, pending, npending, 0, NOT_ASKED, 0,
                                wm3, c - b0, d - b1);
        else
            ok = pickup_search_exact(s, h2, n3, w3, wm3, tp + pts, pending, npending, c - b0,
                                     d - b1, S);
        if (ok) return 1;
    }
    return 0;
}
