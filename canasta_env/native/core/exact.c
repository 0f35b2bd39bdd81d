/* Exact turn feasibility for meld rules beyond Classic's (Hand and Foot).
 *
 * Mirrors canasta_env/engine/exact.py function by function: the per-rank outcome sets
 * (_books_only, _free, rank_outcomes; memoized there with lru_cache, here in tables
 * per set of meld rules), wild_meld_books, max_points and can_meld_all.
 * Rules: docs/RULES.md section 3.4.
 *
 * An outcome set is a set of (clean, dirty) book counts: a bit (c, d) in rows[c] bit d.
 * The memo tables belong to the calling thread (a pthread key; freed when the thread
 * exits): the search (search.c) runs without the GIL, in as many threads as the caller
 * likes, and no thread waits for another's tables. A thread's tables hold up to NSLOTS
 * sets of meld rules (about 0.6 MB each); with no memory left it computes without them.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include "state.h"

#define OROWS 24
typedef struct { uint32_t row[OROWS]; } oset;

#define MAXN 40   /* naturals of one rank: 4 * decks <= 32 */
#define MAXW 80   /* wild cards: jokers + 4 * decks <= 72 */
#define NSLOTS 8

typedef struct {
    int used, max_size, cap, half, canasta;
    unsigned char have_bo[MAXN][MAXW], have_fr[MAXN][MAXW];
    oset bo[MAXN][MAXW], fr[MAXN][MAXW];
} memo_t;

typedef struct {
    int max_size, cap, half, canasta;
    int nbooks, bn[24], bw[24];
    int nopens, on[256], ow[256];
    memo_t *memo;
} rules_t;

/* one thread's memo tables, and the rules of its last call (the same options come back
 * call after call) */
typedef struct {
    memo_t *slots[NSLOTS];
    int next_slot;
    rules_t last_rules;
    int have_last;
} memo_owner;

static pthread_key_t owner_key;
static pthread_once_t owner_once = PTHREAD_ONCE_INIT;
static int owner_key_ok;

static void owner_free(void *p) {
    memo_owner *t = (memo_owner *)p;
    for (int i = 0; i < NSLOTS; i++) free(t->slots[i]);
    free(t);
}

static void owner_key_make(void) { owner_key_ok = pthread_key_create(&owner_key, owner_free) == 0; }

/* the calling thread's tables, made on its first call; NULL without memory */
static memo_owner *owner(void) {
    pthread_once(&owner_once, owner_key_make);
    if (!owner_key_ok) return NULL;
    memo_owner *t = (memo_owner *)pthread_getspecific(owner_key);
    if (t) return t;
    t = (memo_owner *)calloc(1, sizeof *t);
    if (t && pthread_setspecific(owner_key, t) != 0) {
        free(t);
        t = NULL;
    }
    return t;
}

static int wild_limit(const rules_t *R, int n) {
    if (R->half) return R->cap < n / 2 ? R->cap : n / 2;
    return R->cap;
}

static void rules_build(const cn_options *o, rules_t *R, memo_owner *t);

static void rules_of(const cn_options *o, rules_t *R) {
    memo_owner *t = owner();
    if (t && t->have_last && t->last_rules.max_size == o->max_meld_size &&
        t->last_rules.cap == o->max_wilds_per_meld &&
        t->last_rules.half == o->wilds_at_most_half_naturals &&
        t->last_rules.canasta == o->canasta_size && t->last_rules.memo) {
        *R = t->last_rules;
        return;
    }
    rules_build(o, R, t);
    if (!t) return;
    t->last_rules = *R;
    t->have_last = 1;
}

static void rules_build(const cn_options *o, rules_t *R, memo_owner *t) {
    R->max_size = o->max_meld_size;
    R->cap = o->max_wilds_per_meld;
    R->half = o->wilds_at_most_half_naturals;
    R->canasta = o->canasta_size;
    int m = R->max_size;
    R->nbooks = R->nopens = 0;
    for (int n = 2; n <= m; n++) {
        if (m - n <= wild_limit(R, n)) {
            R->bn[R->nbooks] = n;
            R->bw[R->nbooks++] = m - n;
        }
    }
    for (int n = 2; n < m; n++)
        for (int w = 0; w < m - n; w++)
            if (3 <= n + w && n + w < m && w <= wild_limit(R, n) && R->nopens < 256) {
                R->on[R->nopens] = n;
                R->ow[R->nopens++] = w;
            }
    R->memo = NULL;
    if (!t) return;  /* no memory: compute without memo */
    memo_t **slots = t->slots;
    for (int i = 0; i < NSLOTS; i++) {
        memo_t *mm = slots[i];
        if (mm && mm->max_size == R->max_size && mm->cap == R->cap && mm->half == R->half &&
            mm->canasta == R->canasta) {
            R->memo = mm;
            return;
        }
    }
    int i = t->next_slot;
    t->next_slot = (t->next_slot + 1) % NSLOTS;
    if (!slots[i]) slots[i] = (memo_t *)malloc(sizeof(memo_t));
    if (!slots[i]) return;  /* no memory: compute without memo */
    memo_t *mm = slots[i];
    memset(mm->have_bo, 0, sizeof mm->have_bo);
    memset(mm->have_fr, 0, sizeof mm->have_fr);
    mm->max_size = R->max_size;
    mm->cap = R->cap;
    mm->half = R->half;
    mm->canasta = R->canasta;
    mm->used = 1;
    R->memo = mm;
}

static int oset_empty(const oset *a) {
    for (int i = 0; i < OROWS; i++)
        if (a->row[i]) return 0;
    return 1;
}

/* out |= a shifted by (dc, dd) */
static void oset_or_shift(oset *out, const oset *a, int dc, int dd) {
    for (int i = 0; i + dc < OROWS; i++)
        if (a->row[i]) out->row[i + dc] |= a->row[i] << dd;
}

static void oset_add(oset *out, int c, int d) {
    if (c < OROWS && d < 32) out->row[c] |= 1u << d;
}

static void open_counts(const rules_t *R, int n, int w, int *c, int *d) {
    *c = *d = 0;
    if (n + w >= R->canasta) {
        if (w) *d = 1;
        else *c = 1;
    }
}

static void books_only(const rules_t *R, int n, int w, oset *out) {
    int memo = R->memo && n < MAXN && w < MAXW;
    if (memo && R->memo->have_bo[n][w]) {
        *out = R->memo->bo[n][w];
        return;
    }
    memset(out, 0, sizeof *out);
    if (n == 0 && w == 0) {
        oset_add(out, 0, 0);
    } else {
        for (int i = 0; i < R->nbooks; i++) {
            int bn = R->bn[i], bw = R->bw[i];
            if (bn <= n && bw <= w) {
                oset sub;
                books_only(R, n - bn, w - bw, &sub);
                oset_or_shift(out, &sub, bw == 0, bw > 0);
            }
        }
    }
    if (memo) {
        R->memo->bo[n][w] = *out;
        R->memo->have_bo[n][w] = 1;
    }
}

static void free_split(const rules_t *R, int n, int w, oset *out) {
    int memo = R->memo && n < MAXN && w < MAXW;
    if (memo && R->memo->have_fr[n][w]) {
        *out = R->memo->fr[n][w];
        return;
    }
    memset(out, 0, sizeof *out);
    if (R->max_size == 0) {
        if (n == 0 && w == 0) {
            oset_add(out, 0, 0);
        } else if (n >= 2 && n + w >= 3 && w <= wild_limit(R, n)) {
            int c, d;
            open_counts(R, n, w, &c, &d);
            oset_add(out, c, d);
        }
    } else {
        books_only(R, n, w, out);
        for (int i = 0; i < R->nopens; i++) {
            int on = R->on[i], ow = R->ow[i];
            if (on <= n && ow <= w) {
                int c, d;
                oset sub;
                open_counts(R, on, ow, &c, &d);
                books_only(R, n - on, w - ow, &sub);
                oset_or_shift(out, &sub, c, d);
            }
        }
    }
    if (memo) {
        R->memo->fr[n][w] = *out;
        R->memo->have_fr[n][w] = 1;
    }
}

static void rank_outcomes(const rules_t *R, int n, int w, int n0, int w0, oset *out) {
    if (n0 == 0) {
        free_split(R, n, w, out);
        return;
    }
    memset(out, 0, sizeof *out);
    if (n < n0 || w < w0) return;
    if (R->max_size == 0) {
        free_split(R, n, w, out);
        return;
    }
    for (int i = 0; i < R->nbooks; i++) {
        int bn = R->bn[i], bw = R->bw[i];
        if (n0 <= bn && bn <= n && w0 <= bw && bw <= w) {
            oset sub;
            free_split(R, n - bn, w - bw, &sub);
            oset_or_shift(out, &sub, bw == 0, bw > 0);
        }
    }
    if (n + w < R->max_size && w <= wild_limit(R, n)) {
        int c, d;
        open_counts(R, n, w, &c, &d);
        oset_add(out, c, d);
    }
}

static int rank_nonempty_impl(const cn_options *o, int n, int w, int n0, int w0) {
    rules_t R;
    oset a;
    rules_of(o, &R);
    rank_outcomes(&R, n, w, n0, w0, &a);
    return !oset_empty(&a);
}

int cn_wild_meld_books(const cn_options *o, int s0, int x) {
    if (x == 0) return 0;
    if (!o->wild_melds) return -1;
    int t = s0 + x, m = o->max_meld_size;
    if (m == 0) return t >= 3 ? 0 : -1;
    if (s0 && t < m) return 0;
    int rem = t % m;
    if (rem == 0 || rem >= 3) return t / m;
    return -1;
}

static int wild_values(int n_wild, int jokers) {
    int pj = n_wild < jokers ? n_wild : jokers;
    return pj * CN_POINTS[CN_JOKER] + (n_wild - pj) * CN_POINTS[CN_TWO];
}

static int max_points_impl(const int *hand, const int *nat, const int *wild, int wm,
                  const cn_options *o, int keep) {
    int size = cn_sum(hand);
    if (size < keep) return -1;
    int nwild = hand[CN_JOKER] + hand[CN_TWO];
    rules_t R;
    rules_of(o, &R);
    int W = nwild + 1, L = size + 1;
    int stackbuf[2 * 2048];
    int *states = W * L <= 2048 ? stackbuf : (int *)malloc(sizeof(int) * (size_t)W * (size_t)L * 2);
    if (!states) return -1;
    int *nw_ = states + W * L;
    for (int i = 0; i < W * L; i++) states[i] = -1;
    states[0] = 0;
    int oa[(MAXN + 1) * (MAXW + 1)], ob[(MAXN + 1) * (MAXW + 1)];  /* (a, b) options of a rank */
    for (int r = CN_FOUR; r <= CN_ACE; r++) {
        int h = hand[r], n0 = nat[r], w0 = wild[r];
        if (!h && !n0) continue;
        int nopts = 0;
        for (int a = 0; a <= h; a++) {
            for (int b = 0; b <= nwild; b++) {
                if (!(a || b)) continue;
                oset os;
                rank_outcomes(&R, n0 + a, w0 + b, n0, w0, &os);
                if (!oset_empty(&os) && nopts < (MAXN + 1) * (MAXW + 1)) {
                    oa[nopts] = a;
                    ob[nopts++] = b;
                }
            }
        }
        if (!nopts) continue;
        memcpy(nw_, states, sizeof(int) * (size_t)W * (size_t)L);
        for (int u = 0; u < W; u++) {
            for (int lay = 0; lay < L; lay++) {
                int pts = states[u * L + lay];
                if (pts < 0) continue;
                for (int i = 0; i < nopts; i++) {
                    int a = oa[i], b = ob[i];
                    if (u + b > nwild || lay + a >= L) continue;
                    int v = pts + a * CN_POINTS[r];
                    int *cell = &nw_[(u + b) * L + lay + a];
                    if (*cell < v) *cell = v;
                }
            }
        }
        memcpy(states, nw_, sizeof(int) * (size_t)W * (size_t)L);
    }
    int best = -1;
    for (int u = 0; u < W; u++) {
        for (int lay = 0; lay < L; lay++) {
            int pts = states[u * L + lay];
            if (pts < 0) continue;
            for (int x = 0; x <= nwild - u; x++) {
                if (cn_wild_meld_books(o, wm, x) < 0) continue;
                int placed = u + x;
                if (size - lay - placed < keep) break;
                int v = pts + wild_values(placed, hand[CN_JOKER]);
                if (v > best) best = v;
            }
        }
    }
    if (states != stackbuf) free(states);
    return best;
}

static int can_meld_all_impl(const int *hand, const int *nat, const int *wild, int wm,
                    const cn_options *o, int have_clean, int have_dirty, int need_clean,
                    int need_dirty, int need_books, int need_pts, int black_three_melds) {
    int b3 = hand[CN_B3];
    if (b3 && (!black_three_melds || !(3 <= b3 && b3 <= o->black_three_meld_max))) return 0;
    int pts = 0;
    for (int c = 0; c < CN_NC; c++) pts += hand[c] * CN_POINTS[c];
    if (pts < need_pts) return 0;
    int nwild = hand[CN_JOKER] + hand[CN_TWO];
    int cc = need_clean - have_clean; if (cc < 0) cc = 0;
    int cd = need_dirty - have_dirty; if (cd < 0) cd = 0;
    int ct = need_books - have_clean - have_dirty; if (ct < 0) ct = 0;
    /* every book or canasta counted below takes 3 or more of the cards of the hand, the
     * open melds and the wild meld: a requirement above that count is never met, and the
     * tables below are sized by the requirements (each up to limits.REQUIREMENT_MAX,
     * 1,000: W * 1001^3 bytes) */
    int pool = wm;
    for (int c = 0; c < CN_NC; c++) pool += hand[c] + nat[c] + wild[c];
    if (cc > pool / 3 || cd > pool / 3 || ct > pool / 3) return 0;
    rules_t R;
    rules_of(o, &R);
    int W = nwild + 1, C = cc + 1, D = cd + 1, T = ct + 1;
    size_t NS = (size_t)W * C * D * T;
    unsigned char *st = (unsigned char *)calloc(NS * 2, 1);
    if (!st) return 0;
    unsigned char *nx = st + NS;
#define IDX(u, c, d, t) ((((size_t)(u) * C + (c)) * D + (d)) * T + (t))
    st[IDX(0, 0, 0, 0)] = 1;
    int result = 0;
    for (int r = CN_FOUR; r <= CN_ACE; r++) {
        int h = hand[r], n0 = nat[r], w0 = wild[r];
        if (!h && !n0) continue;
        oset outs[MAXW + 1];
        int any = 0;
        for (int b = 0; b <= nwild && b <= MAXW; b++) {
            rank_outcomes(&R, n0 + h, w0 + b, n0, w0, &outs[b]);
            if (!oset_empty(&outs[b])) any = 1;
        }
        if (!any) goto done;
        memset(nx, 0, NS);
        int nonempty = 0;
        for (int u = 0; u < W; u++)
            for (int c = 0; c < C; c++)
                for (int d = 0; d < D; d++)
                    for (int t = 0; t < T; t++) {
                        if (!st[IDX(u, c, d, t)]) continue;
                        for (int b = 0; u + b <= nwild; b++) {
                            const oset *os = &outs[b];
                            for (int oc = 0; oc < OROWS; oc++) {
                                uint32_t row = os->row[oc];
                                while (row) {
                                    int od = __builtin_ctz(row);
                                    row &= row - 1;
                                    int c2 = c + oc < cc ? c + oc : cc;
                                    int d2 = d + od < cd ? d + od : cd;
                                    int t2 = t + oc + od < ct ? t + oc + od : ct;
                                    nx[IDX(u + b, c2, d2, t2)] = 1;
                                    nonempty = 1;
                                }
                            }
                        }
                    }
        memcpy(st, nx, NS);
        if (!nonempty) goto done;
    }
    for (int u = 0; u < W && !result; u++)
        for (int c = 0; c < C && !result; c++)
            for (int d = 0; d < D && !result; d++)
                for (int t = 0; t < T; t++) {
                    if (!st[IDX(u, c, d, t)]) continue;
                    int wb = cn_wild_meld_books(o, wm, nwild - u);
                    if (wb < 0) continue;
                    int c2 = c + wb < cc ? c + wb : cc;
                    int t2 = t + wb < ct ? t + wb : ct;
                    if (c2 >= cc && d >= cd && t2 >= ct) {
                        result = 1;
                        break;
                    }
                }
#undef IDX
done:
    free(st);
    return result;
}

/* ------------------------------------------------------------------ entry points */
/* No lock: each thread reads and fills its own memo tables (owner()). */

int cn_rank_nonempty(const cn_options *o, int n, int w, int n0, int w0) {
    return rank_nonempty_impl(o, n, w, n0, w0);
}

int cn_max_points(const int *hand, const int *nat, const int *wild, int wm,
                  const cn_options *o, int keep) {
    return max_points_impl(hand, nat, wild, wm, o, keep);
}

int cn_can_meld_all(const int *hand, const int *nat, const int *wild, int wm,
                    const cn_options *o, int have_clean, int have_dirty, int need_clean,
                    int need_dirty, int need_books, int need_pts, int black_three_melds) {
    return can_meld_all_impl(hand, nat, wild, wm, o, have_clean, have_dirty, need_clean,
                             need_dirty, need_books, need_pts, black_three_melds);
}
