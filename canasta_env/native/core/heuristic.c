/* The rule-based policy, from one seat's observation vector and action mask.
 *
 * Mirrors canasta_env/policies.py function by function: HeuristicPolicy (act, _draw,
 * _answer, _opening, _meld_phase, _want_out, _go_out_step, _build_step, _discard), the
 * TableView decoding and estimates (table_points, canastas, red_three_points, unseen,
 * hidden_hand_value), p_at_least, can_go_out, _apply_meld, _meld_kind, and the Hand and
 * Foot helpers (_hand_and_foot_action, _hf_key, _hf_discard). The Python code is the
 * reference; tests/test_fast_heuristic.py compares the two decision by decision.
 *
 * It reads only the observation (float32, as observation.encode writes it) and the mask
 * (int8 0 / 1): no game state. Decoding repeats the Python's arithmetic: float32
 * products rounded half to even for the vectors (np.rint(x * scale)), double products
 * rounded half to even for the scalars (round(float(x) * scale)). Estimates are doubles
 * in the Python's operation order, and p_at_least is the exact hypergeometric tail
 * (big integers) divided with one correct rounding, as Python's int / int does, so
 * every comparison and tie resolves as in Python.
 *
 * Rules: docs/RULES.md sections 2.8-2.11 (opening, taking the pile, going out), 3
 * (Hand and Foot), 5 (the action ids), 7 (the observation: what a seat may know).
 * The caller (the binding) has checked the input: sizes of a layout, finite values in
 * 0..OBS_MAX, a 0 / 1 mask with a legal action, sum(pack) <= CN_MAXCARDS.
 */
#include <string.h>

#include "state.h"

#define HIDDEN_CARD_VALUE 11.3

/* ------------------------------------------------------------------ decoding */

/* round half to even of y >= 0 (finite, < 2^31): np.rint / Python round */
static int rint_f(float y) {
    int i = (int)y;
    float frac = y - (float)i;  /* exact: y in [i, i + 1) */
    if (frac > 0.5f || (frac == 0.5f && (i & 1))) i++;
    return i;
}

static int rint_d(double y) {
    int i = (int)y;
    double frac = y - (double)i;
    if (frac > 0.5 || (frac == 0.5 && (i & 1))) i++;
    return i;
}

typedef struct {
    int hand[CN_NC], known[4][CN_NC], sizes[4], red3[4];
    int nat[2][CN_NC], jok[2][CN_NC], two[2][CN_NC], wild[2][CN_NC];
    int pile[CN_NC], pile_size, frozen_them, stock, opened[2], phase;
    int asked_yes, asked_no, must_out, no_discard;
    int books_us[3];  /* Hand and Foot: closed books clean, dirty, wild */
} view;

static const int MELD_SLOTS[12] = {4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, CN_B3};

static void ints(const float *x, int n, float scale, int *out) {
    for (int i = 0; i < n; i++) out[i] = rint_f(x[i] * scale);
}

/* meld slots (ranks 4..A, black 3) into a per-class vector (TableView._per_class) */
static void per_class(const float *x, float scale, int *out) {
    memset(out, 0, CN_NC * sizeof(int));
    for (int i = 0; i < 12; i++) out[MELD_SLOTS[i]] = rint_f(x[i] * scale);
}

/* TableView.__init__ (the fields the policy reads) */
static void decode(const float *obs, int hf, view *v) {
    ints(obs + CN_O_HAND, CN_NC, 8.0f, v->hand);
    memset(v->known[0], 0, sizeof v->known[0]);
    ints(obs + CN_O_KNOWN_LEFT, CN_NC, 8.0f, v->known[1]);
    ints(obs + CN_O_KNOWN_PARTNER, CN_NC, 8.0f, v->known[2]);
    ints(obs + CN_O_KNOWN_RIGHT, CN_NC, 8.0f, v->known[3]);
    ints(obs + CN_O_HAND_SIZES, 4, 30.0f, v->sizes);
    ints(obs + CN_O_RED_THREES, 4, 4.0f, v->red3);
    for (int t = 0; t < 2; t++) {
        int base = t ? CN_O_MELDS_THEM : CN_O_MELDS_US;
        per_class(obs + base, 8.0f, v->nat[t]);
        per_class(obs + base + 12, 4.0f, v->jok[t]);
        per_class(obs + base + 24, 4.0f, v->two[t]);
        for (int c = 0; c < CN_NC; c++) v->wild[t][c] = v->jok[t][c] + v->two[t][c];
    }
    ints(obs + CN_O_PILE_CONTENTS, CN_NC, 8.0f, v->pile);
    v->pile_size = rint_d((double)obs[CN_O_PILE_SIZE] * 50);
    v->frozen_them = obs[CN_O_PILE_FROZEN + 2] > 0.5f;
    v->stock = rint_d((double)obs[CN_O_STOCK_SIZE] * 100);
    v->opened[0] = obs[CN_O_OPENED] > 0.5f;
    v->opened[1] = obs[CN_O_OPENED + 1] > 0.5f;
    int ph = 0;  /* np.argmax: the first maximum */
    for (int i = 1; i < 6; i++)
        if (obs[CN_O_PHASE + i] > obs[CN_O_PHASE + ph]) ph = i;
    v->phase = ph;
    const float *ts = obs + CN_O_TURN_STATE;
    v->asked_yes = ts[3] > 0.5f;
    v->asked_no = ts[4] > 0.5f;
    v->must_out = ts[5] > 0.5f;
    v->no_discard = ts[6] > 0.5f;
    if (hf) ints(obs + CN_O_BOOKS_US, 3, 4.0f, v->books_us);
    else memset(v->books_us, 0, sizeof v->books_us);
}

/* ------------------------------------------------------------------ estimates */

static int hand_value(const int *hand) {
    int t = 0;
    for (int c = 0; c < CN_NC; c++) t += hand[c] * CN_POINTS[c];
    return t;
}

static int any15(const int *x) {
    for (int c = 0; c < CN_NC; c++)
        if (x[c]) return 1;
    return 0;
}

/* TableView.table_points: card values plus canasta bonuses of a partnership's melds */
static int table_points(const view *v, int team, int size) {
    const int *nat = v->nat[team], *jok = v->jok[team], *two = v->two[team];
    int pts = 0;
    for (int r = 0; r < CN_NC; r++) {
        int n = nat[r];
        if (!n) continue;
        int w = jok[r] + two[r];
        pts += n * CN_POINTS[r] + jok[r] * CN_POINTS[CN_JOKER] + two[r] * CN_POINTS[CN_TWO];
        if (n + w >= size) pts += w ? 300 : 500;
    }
    return pts;
}

static int canastas(const view *v, int team, int size) {
    int k = 0;
    for (int r = CN_FOUR; r <= CN_ACE; r++)
        if (v->nat[team][r] && v->nat[team][r] + v->wild[team][r] >= size) k++;
    return k;
}

static int red_three_points(const view *v, int team) {
    int n = team == 0 ? v->red3[0] + v->red3[2] : v->red3[1] + v->red3[3];
    int pts = n >= 4 ? 800 : 100 * n;
    return any15(v->nat[team]) ? pts : -pts;
}

static double hidden_hand_value(const view *v, int rel) {
    const int *known = v->known[rel];
    int kn = 0, kv = 0;
    for (int c = 0; c < CN_NC; c++) {
        kn += known[c];
        kv += known[c] * CN_POINTS[c];
    }
    int h = v->sizes[rel] - kn;
    if (h < 0) h = 0;
    return (double)kv + (double)h * HIDDEN_CARD_VALUE;
}

/* TableView.unseen(pack) */
static void unseen(const view *v, const int *pack, int *out) {
    int seen[CN_NC];
    for (int c = 0; c < CN_NC; c++)
        seen[c] = v->hand[c] + v->pile[c] + v->nat[0][c] + v->nat[1][c] + v->known[1][c]
                  + v->known[2][c] + v->known[3][c];
    for (int c = 0; c < CN_NC; c++) {
        seen[CN_JOKER] += v->jok[0][c] + v->jok[1][c];
        seen[CN_TWO] += v->two[0][c] + v->two[1][c];
    }
    for (int i = 0; i < 4; i++) seen[CN_R3] += v->red3[i];
    for (int c = 0; c < CN_NC; c++) out[c] = pack[c] > seen[c] ? pack[c] - seen[c] : 0;
}

/* ------------------------------------------------------------------ big integers */
/* Non-negative integers of at most BN_LIMBS 32-bit limbs (little endian, no leading
 * zero limbs). With at most CN_MAXCARDS = 480 unseen cards every binomial coefficient
 * and sum below is < 2^480 (15 limbs); intermediate products stay under 2^490. */
#define BN_LIMBS 20

typedef struct {
    int n;
    uint32_t d[BN_LIMBS];
} bn;

static void bn_set(bn *a, uint32_t x) {
    a->n = x ? 1 : 0;
    a->d[0] = x;
}

static void bn_mul_small(bn *a, uint32_t m) {
    uint64_t carry = 0;
    if (m == 0) { a->n = 0; return; }
    for (int i = 0; i < a->n; i++) {
        uint64_t t = (uint64_t)a->d[i] * m + carry;
        a->d[i] = (uint32_t)t;
        carry = t >> 32;
    }
    if (carry && a->n < BN_LIMBS) a->d[a->n++] = (uint32_t)carry;
}

static void bn_div_small(bn *a, uint32_t m) {  /* exact division by m > 0 */
    uint64_t rem = 0;
    for (int i = a->n - 1; i >= 0; i--) {
        uint64_t cur = (rem << 32) | a->d[i];
        a->d[i] = (uint32_t)(cur / m);
        rem = cur % m;
    }
    while (a->n && !a->d[a->n - 1]) a->n--;
}

static void bn_add(bn *a, const bn *b) {
    uint64_t carry = 0;
    int n = a->n > b->n ? a->n : b->n;
    for (int i = 0; i < n; i++) {
        uint64_t t = carry + (i < a->n ? a->d[i] : 0) + (i < b->n ? b->d[i] : 0);
        a->d[i] = (uint32_t)t;
        carry = t >> 32;
    }
    a->n = n;
    if (carry && a->n < BN_LIMBS) a->d[a->n++] = (uint32_t)carry;
}

static void bn_mul(bn *out, const bn *a, const bn *b) {
    uint32_t t[2 * BN_LIMBS];
    int n = a->n + b->n;
    memset(t, 0, sizeof t);
    for (int i = 0; i < a->n; i++) {
        uint64_t carry = 0;
        for (int j = 0; j < b->n; j++) {
            uint64_t x = (uint64_t)a->d[i] * b->d[j] + t[i + j] + carry;
            t[i + j] = (uint32_t)x;
            carry = x >> 32;
        }
        t[i + b->n] = (uint32_t)carry;
    }
    while (n && !t[n - 1]) n--;
    if (n > BN_LIMBS) n = BN_LIMBS;  /* never: the product is below 2^490 */
    memcpy(out->d, t, (size_t)n * sizeof(uint32_t));
    out->n = n;
}

static int bn_cmp(const bn *a, const bn *b) {
    if (a->n != b->n) return a->n < b->n ? -1 : 1;
    for (int i = a->n - 1; i >= 0; i--)
        if (a->d[i] != b->d[i]) return a->d[i] < b->d[i] ? -1 : 1;
    return 0;
}

static void bn_sub(bn *a, const bn *b) {  /* a -= b, a >= b */
    int64_t borrow = 0;
    for (int i = 0; i < a->n; i++) {
        int64_t t = (int64_t)a->d[i] - (i < b->n ? b->d[i] : 0) - borrow;
        borrow = t < 0;
        a->d[i] = (uint32_t)(t + (borrow ? ((int64_t)1 << 32) : 0));
    }
    while (a->n && !a->d[a->n - 1]) a->n--;
}

static void bn_shl(bn *a, int k) {  /* a <<= k, k >= 0 */
    if (!a->n || k <= 0) return;
    int limbs = k / 32, bits = k % 32;
    int n = a->n + limbs + 1;
    if (n > BN_LIMBS) n = BN_LIMBS;  /* never: shifted values stay below 2^482 */
    uint32_t t[BN_LIMBS];
    memset(t, 0, sizeof t);
    for (int i = 0; i < a->n && i + limbs < BN_LIMBS; i++) {
        uint64_t x = (uint64_t)a->d[i] << bits;
        t[i + limbs] |= (uint32_t)x;
        if (i + limbs + 1 < BN_LIMBS) t[i + limbs + 1] |= (uint32_t)(x >> 32);
    }
    while (n && !t[n - 1]) n--;
    memcpy(a->d, t, sizeof t);
    a->n = n;
}

static void bn_shl1(bn *a) {  /* a <<= 1 in place */
    uint32_t carry = 0;
    for (int i = 0; i < a->n; i++) {
        uint32_t x = a->d[i];
        a->d[i] = (x << 1) | carry;
        carry = x >> 31;
    }
    if (carry && a->n < BN_LIMBS) a->d[a->n++] = carry;
}

static int bn_bitlen(const bn *a) {
    if (!a->n) return 0;
    uint32_t top = a->d[a->n - 1];
    int b = 0;
    while (top) { b++; top >>= 1; }
    return 32 * (a->n - 1) + b;
}

/* C(n, k) (0 when k < 0 or k > n): C(n, i + 1) = C(n, i) (n - i) / (i + 1), exact */
static void bn_comb(bn *out, int n, int k) {
    if (k < 0 || k > n) { bn_set(out, 0); return; }
    if (k > n - k) k = n - k;
    bn_set(out, 1);
    for (int i = 0; i < k; i++) {
        bn_mul_small(out, (uint32_t)(n - i));
        bn_div_small(out, (uint32_t)(i + 1));
    }
}

/* a / b rounded once to the nearest double, ties to even (Python's int / int), for
 * 0 <= a <= b, b > 0 */
static double bn_ratio(const bn *a, const bn *b) {
    if (!a->n) return 0.0;
    if (bn_cmp(a, b) == 0) return 1.0;
    if (b->n <= 2 && bn_bitlen(b) <= 53) {  /* both exact doubles: one IEEE division */
        double x = a->d[0], y = b->d[0];
        if (a->n == 2) x += (double)a->d[1] * 4294967296.0;
        if (b->n == 2) y += (double)b->d[1] * 4294967296.0;
        return x / y;
    }
    bn r = *a;
    int e = bn_bitlen(b) - bn_bitlen(a);
    bn_shl(&r, e);
    if (bn_cmp(&r, b) < 0) { bn_shl1(&r); e++; }
    /* r in [b, 2b): a / b = (r / b) 2^-e; 55 bits of r / b, then a sticky bit */
    uint64_t q = 0;
    for (int i = 0; i < 55; i++) {
        q <<= 1;
        if (bn_cmp(&r, b) >= 0) { bn_sub(&r, b); q |= 1; }
        bn_shl1(&r);
    }
    uint64_t m = q >> 2;
    unsigned g = (unsigned)(q & 3);
    if (g > 2 || (g == 2 && (r.n || (m & 1)))) m++;
    /* m 2^(-52 - e), e <= 480: a normal power of two, an exact product */
    uint64_t bits = (uint64_t)(1023 - 52 - e) << 52;
    double p;
    memcpy(&p, &bits, sizeof p);
    return (double)m * p;
}

/* p_at_least with the total C(population, draws) of this decision computed once */
typedef struct {
    int population, draws;  /* draws = min(draws, population) */
    int have_total;
    bn total;
} hyper;

static void hyper_init(hyper *h, int population, int draws) {
    h->population = population;
    h->draws = draws < population ? draws : population;
    h->have_total = 0;
}

/* policies.p_at_least(k, population, successes, draws): P(X >= k), X hypergeometric.
 * successes <= population always here (unseen counts of one class <= their sum). */
static double p_at_least(hyper *h, int k, int successes) {
    if (k <= 0) return 1.0;
    int d = h->draws, pop = h->population;
    if (d <= 0 || successes <= 0) return 0.0;
    if (!h->have_total) {
        bn_comb(&h->total, pop, d);
        h->have_total = 1;
    }
    /* sum over x = k .. min(successes, draws) of T(x) = C(s, x) C(m, d - x), m = pop - s;
     * T(x) = 0 while d - x > m; from the first nonzero term on,
     * T(x + 1) = T(x) (s - x) (d - x) / ((x + 1) (m - d + x + 1)), an exact division */
    int s = successes, m = pop - successes;
    int top = s < d ? s : d;
    int x = k > d - m ? k : d - m;
    bn sum, a, b, t;
    bn_set(&sum, 0);
    if (x <= top) {
        bn_comb(&a, s, x);
        bn_comb(&b, m, d - x);
        bn_mul(&t, &a, &b);
        for (;;) {
            bn_add(&sum, &t);
            if (x == top) break;
            bn_mul_small(&t, (uint32_t)((s - x) * (d - x)));
            bn_div_small(&t, (uint32_t)((x + 1) * (m - d + x + 1)));
            x++;
        }
    }
    return bn_ratio(&sum, &h->total);
}

double cn_p_at_least(int k, int population, int successes, int draws) {
    hyper h;
    if (k <= 0) return 1.0;
    hyper_init(&h, population, draws);
    return p_at_least(&h, k, successes);
}

/* ------------------------------------------------------------------ melds */

/* policies.can_go_out: the engine's exact check on public information */
static int can_go_out(const int *hand, const int *nat, const int *wild,
                      const cn_heur_params *p) {
    int h[CN_NC], have = 0;
    memcpy(h, hand, sizeof h);
    for (int r = CN_FOUR; r <= CN_ACE; r++)
        if (nat[r] && nat[r] + wild[r] >= p->size) have++;
    return cn_can_go_out(h, nat, wild, p->cap, p->size, have, p->needed, 0, 1, 1, 4);
}

enum { K_START = 0, K_ADD = 1, K_B3 = 2 };

/* _meld_kind: (start | add | b3, rank class, kind 0 natural / 1 joker / 2 two) */
static void meld_kind(int a, int *what, int *r, int *k) {
    if (a == A_MELD_BLACK_THREES) {
        *what = K_B3; *r = CN_B3; *k = 0;
    } else if (a >= A_ADD_TO_MELD) {
        *what = K_ADD; *r = CN_FOUR + (a - A_ADD_TO_MELD) / 3; *k = (a - A_ADD_TO_MELD) % 3;
    } else {
        *what = K_START; *r = CN_FOUR + (a - A_START_MELD) / 3; *k = (a - A_START_MELD) % 3;
    }
}

/* _apply_meld on copies of (hand, nat, wild) */
static void apply_meld(int a, int *hand, int *nat, int *wild) {
    int what, r, k;
    meld_kind(a, &what, &r, &k);
    if (what == K_B3) {
        nat[CN_B3] += hand[CN_B3];
        hand[CN_B3] = 0;
    } else if (what == K_ADD) {
        hand[k == 0 ? r : k == 1 ? CN_JOKER : CN_TWO]--;
        if (k == 0) nat[r]++;
        else wild[r]++;
    } else if (k == 0) {
        hand[r] -= 3;
        nat[r] += 3;
    } else {
        hand[r] -= 2;
        hand[k == 1 ? CN_JOKER : CN_TWO]--;
        nat[r] += 2;
        wild[r]++;
    }
}

static int is_meld(int a) { return a >= A_START_MELD && a <= A_MELD_BLACK_THREES; }

/* lexicographic a < b over n ints */
static int key_less(const int *a, const int *b, int n) {
    for (int i = 0; i < n; i++)
        if (a[i] != b[i]) return a[i] < b[i];
    return 0;
}

/* ------------------------------------------------------------------ Classic */

static double estimate(const view *v, double out_hand_value, int out_bonus, double our_hidden,
                       const cn_heur_params *p) {
    double us = (double)table_points(v, 0, p->size) + out_hand_value;
    us += out_bonus;
    us += red_three_points(v, 0);
    us -= our_hidden;
    if (!any15(v->nat[0])) {
        int r3 = red_three_points(v, 0);
        us += 2 * (r3 < 0 ? -r3 : r3);
    }
    double them = (double)(table_points(v, 1, p->size) + red_three_points(v, 1));
    them -= hidden_hand_value(v, 1);
    them -= hidden_hand_value(v, 3);
    return us - them;
}

/* int(x) > margin for the estimate x: truncation toward zero, as Python's int() */
static int above(double x, int margin) { return (long long)x > (long long)margin; }

static int opponents_close(const view *v, const cn_heur_params *p) {
    int m = v->sizes[1] < v->sizes[3] ? v->sizes[1] : v->sizes[3];
    return canastas(v, 1, p->size) >= p->needed && m <= p->close_hand;
}

static int want_out(const view *v, const cn_heur_params *p) {
    if (v->stock <= p->stop_stock || opponents_close(v, p)) return 1;
    return above(estimate(v, (double)hand_value(v->hand), 100, hidden_hand_value(v, 2), p),
                 p->out_margin);
}

static int sum15(const int *x) { return cn_sum(x); }

static int h_draw(const view *v, const int8_t *m, const int *legal, const cn_heur_params *p) {
    static const int TAKES[4] = {A_TAKE_ONTO_MELD, A_TAKE_PAIR, A_TAKE_NAT_TWO,
                                 A_TAKE_NAT_JOKER};
    static const int USES[4] = {0, 2, 2, 2};
    int size = sum15(v->hand);
    int gained = v->pile_size - 1 - v->pile[CN_R3];
    int takes[4], uses[4], nt = 0, any_out = 0;
    for (int i = 0; i < 4; i++) {
        if (m[TAKES[i]]) {
            takes[nt] = TAKES[i];
            uses[nt++] = USES[i];
            if (size - USES[i] + gained <= 0) any_out = 1;
        }
    }
    if (any_out && !want_out(v, p)) {
        int n = 0;
        for (int i = 0; i < nt; i++)
            if (size - uses[i] + gained > 0) takes[n++] = takes[i];
        nt = n;
    }
    if (v->stock == 0 || !m[A_DRAW_STOCK]) {
        for (int i = 0; i < nt; i++)
            if (takes[i] == A_TAKE_ONTO_MELD) return takes[i];
        for (int i = 0; i < nt; i++)
            if (takes[i] == A_TAKE_PAIR) return takes[i];
        if (m[A_DECLINE_PILE]) return A_DECLINE_PILE;
        return nt ? takes[0] : legal[0];
    }
    for (int i = 0; i < nt; i++) {
        if (takes[i] == A_TAKE_ONTO_MELD || takes[i] == A_TAKE_PAIR) return takes[i];
        if (v->pile_size >= p->take_wild_pile) return takes[i];
    }
    return A_DRAW_STOCK;
}

static int h_answer(const view *v, const int8_t *m, const cn_heur_params *p) {
    if (!m[A_ANSWER_NO]) return A_ANSWER_YES;
    int yes = above(estimate(v, 0.0, 100, (double)hand_value(v->hand), p), p->out_margin)
              || opponents_close(v, p) || v->stock <= p->stop_stock || sum15(v->hand) <= 3;
    return yes ? A_ANSWER_YES : A_ANSWER_NO;
}

/* _opening: naturals first (most points), then the cheapest wild card; -1: none */
static int h_opening(const int *acts, int n) {
    int best = -1, bk[2] = {0, 0};
    for (int i = 0; i < n; i++) {
        int a = acts[i];
        if (!(a >= A_START_MELD && a < A_MELD_BLACK_THREES)) continue;
        int what, r, k;
        meld_kind(a, &what, &r, &k);
        int pts = CN_POINTS[r] * (what == K_START && k == 0 ? 3 : what == K_START ? 2
                                  : k == 0 ? 1 : 0);
        int wild_cost = k == 0 ? 0 : CN_POINTS[k == 1 ? CN_JOKER : CN_TWO];
        int key[2] = {k != 0, k == 0 ? -pts : wild_cost};
        if (best < 0 || key_less(key, bk, 2)) {
            best = a;
            bk[0] = key[0];
            bk[1] = key[1];
        }
    }
    return best;
}

static int h_discard(const view *v, const int8_t *m, const cn_heur_params *p) {
    int un[CN_NC], pool = 0, lsum = 0;
    const int *hand = v->hand, *left = v->known[1];
    int first = -1;
    for (int a = A_DISCARD; a < A_NUM_CLASSIC; a++)
        if (m[a]) { first = a; break; }
    if (first < 0) return -1;
    unseen(v, p->pack, un);
    for (int c = 0; c < CN_NC; c++) {
        pool += un[c];
        lsum += left[c];
    }
    int hidden = v->sizes[1] - lsum;
    if (hidden < 0) hidden = 0;
    hyper h;
    hyper_init(&h, pool, hidden);
    double p_wild = (left[CN_JOKER] + left[CN_TWO]) ? 1.0
                    : p_at_least(&h, 1, un[CN_JOKER] + un[CN_TWO]);
    double weight = 1.0 + v->pile_size / 5.0;
    int freeze = p->freeze_pile > 0 && p->freeze_pile <= v->pile_size && !v->frozen_them;
    int best = -1;
    double best_score = 0.0;
    for (int a = first; a < A_NUM_CLASSIC; a++) {
        if (!m[a]) continue;
        int j = a - A_DISCARD;
        int c = j < CN_R3 ? j : j + 1;  /* DISCARDABLE: every class but the red 3 */
        double score;
        if (c == CN_B3) {
            score = -1000.0;
        } else if (c == CN_JOKER || c == CN_TWO) {
            score = (freeze ? p->freeze_cost : 5000.0) + CN_POINTS[c];
        } else {
            double p_take;
            if (v->nat[1][c] && !v->frozen_them) {
                p_take = 1.0;
            } else {
                p_take = p_at_least(&h, 2 - left[c], un[c]);
                if (!v->frozen_them) {
                    double p_one = p_at_least(&h, 1 - left[c], un[c]);
                    p_take += (p_one - p_take) * p_wild;
                }
            }
            const double KEEP[4] = {0.0, 0.0, p->keep_pair, p->keep_triple};
            double keep = KEEP[hand[c] < 3 ? hand[c] : 3];
            if (v->nat[0][c]) keep += p->keep_melded;
            score = p->danger_weight * p_take * weight + keep + p->value_weight * CN_POINTS[c];
        }
        if (best < 0 || score < best_score) {
            best = a;
            best_score = score;
        }
    }
    return best;
}

static int h_go_out_step(const view *v, const int *melds, int nm, const cn_heur_params *p) {
    int best = -1, bk[2] = {0, 0};
    for (int i = 0; i < nm; i++) {
        int a = melds[i], hand[CN_NC], nat[CN_NC], wild[CN_NC];
        memcpy(hand, v->hand, sizeof hand);
        memcpy(nat, v->nat[0], sizeof nat);
        memcpy(wild, v->wild[0], sizeof wild);
        apply_meld(a, hand, nat, wild);
        if (sum15(hand) > 0 && !can_go_out(hand, nat, wild, p)) continue;
        int what, r, k;
        meld_kind(a, &what, &r, &k);
        int before = v->nat[0][r] + v->wild[0][r];
        int after = nat[r] + wild[r];
        int completes = r != CN_B3 && before < p->size && p->size <= after;
        int key;
        if (what == K_ADD && k == 0) key = 0;
        else if (what == K_START && k == 0) key = 1;
        else if (what == K_B3) key = 2;
        else if (completes) key = 3;
        else if (what == K_START) key = 4;
        else key = 5;
        int k2[2] = {key, k ? -after : 0};
        if (best < 0 || key_less(k2, bk, 2)) {
            best = a;
            bk[0] = k2[0];
            bk[1] = k2[1];
        }
    }
    return best;
}

static int h_build_step(const view *v, const int *melds, int nm, int size,
                        const cn_heur_params *p) {
    const int *hand = v->hand, *nat = v->nat[0], *wild = v->wild[0];
    int wilds_in_hand = hand[CN_JOKER] + hand[CN_TWO];
    int best = -1, bk[3] = {0, 0, 0};
    for (int i = 0; i < nm; i++) {
        int a = melds[i];
        if (a == A_MELD_BLACK_THREES) continue;
        int what, r, k;
        meld_kind(a, &what, &r, &k);
        int used = what == K_START ? 3 : 1;
        if (size - used < p->keep_cards || (what == K_START && size < p->start_meld_hand))
            continue;
        int key[3];
        if (k == 0) {
            key[0] = what == K_ADD ? 0 : 1;
            key[1] = -CN_POINTS[r];
            key[2] = 0;
        } else if (what == K_ADD) {
            int cur = nat[r] + wild[r];
            int need = p->size - cur;
            int room = p->cap - wild[r];
            int lim = wilds_in_hand < room ? wilds_in_hand : room;
            if (cur >= p->size || need > lim + p->wild_slack) continue;
            key[0] = 2;
            key[1] = need;
            key[2] = k == 1 ? 0 : 1;
        } else {
            if (wilds_in_hand < 2 || size < p->pair_wild_hand) continue;
            key[0] = 3;
            key[1] = -CN_POINTS[r];
            key[2] = k == 2 ? 0 : 1;
        }
        if (best < 0 || key_less(key, bk, 3)) {
            best = a;
            memcpy(bk, key, sizeof bk);
        }
    }
    return best;
}

static int h_meld_phase(const view *v, const int8_t *m, const int *legal, int nlegal,
                        const cn_heur_params *p) {
    int melds[CN_MAXACTIONS], nm = 0;
    for (int i = 0; i < nlegal; i++)
        if (is_meld(legal[i])) melds[nm++] = legal[i];
    if (!v->opened[0]) {
        int a = h_opening(melds, nm);
        return a >= 0 ? a : h_discard(v, m, p);
    }
    int size = sum15(v->hand);
    int must_out = v->must_out || v->asked_yes;
    if (must_out || (!v->asked_no && !v->no_discard
                     && can_go_out(v->hand, v->nat[0], v->wild[0], p) && want_out(v, p))) {
        int a = h_go_out_step(v, melds, nm, p);
        if (a >= 0) return a;
        if (size == 1 || must_out) return h_discard(v, m, p);
    }
    int a = h_build_step(v, melds, nm, size, p);
    if (a >= 0) return a;
    for (int i = 0; i < nlegal; i++)
        if (legal[i] >= A_DISCARD) return h_discard(v, m, p);
    if (m[A_FINISH_TURN]) return A_FINISH_TURN;
    return nm ? melds[0] : -1;
}

static int classic_action(const view *v, const int8_t *m, const int *legal, int nlegal,
                          const cn_heur_params *p) {
    switch (v->phase) {
    case PH_DRAW: return h_draw(v, m, legal, p);
    case PH_ANSWER: return h_answer(v, m, p);
    case PH_PICKUP: return h_opening(legal, nlegal);
    default: return h_meld_phase(v, m, legal, nlegal, p);
    }
}

/* ------------------------------------------------------------------ Hand and Foot */

static int hf_is_meld(int a) {
    return (a >= A_START_MELD && a <= A_MELD_BLACK_THREES)
           || (a >= A_START_WILD_MELD && a < A_TAKE_WILD_PAIR);
}

/* _hf_key, padded to three ints (keys of one first entry have one length) */
static void hf_key(const view *v, int a, int *key) {
    const int *nat = v->nat[0], *wild = v->wild[0];
    int kind, r = -1, w;  /* kind: K_START, K_ADD, K_B3, 3 wild start, 4 wild add */
    if (a >= A_START_WILD_MELD) {
        kind = a < A_ADD_TO_WILD_MELD ? 3 : 4;
        w = 1;
    } else if (a == A_MELD_BLACK_THREES) {
        kind = K_B3;
        w = 0;
    } else {
        int k;
        meld_kind(a, &kind, &r, &k);
        w = k != 0;
    }
    /* Python: (a - ADD_TO_MELD) % 3 == 1 (a non-negative remainder) or a == ADD_TO_WILD_MELD */
    int wild_card = ((((a - A_ADD_TO_MELD) % 3) + 3) % 3 == 1 || a == A_ADD_TO_WILD_MELD)
                    ? CN_JOKER : CN_TWO;
    int dirty_open = 0, clean_open = 0;
    for (int r2 = CN_FOUR; r2 <= CN_ACE; r2++) {
        if (nat[r2] && wild[r2]) dirty_open++;
        if (nat[r2] && !wild[r2]) clean_open++;
    }
    int want_dirty = v->books_us[1] + dirty_open < 2;
    int want_clean = v->books_us[0] + v->books_us[2] + clean_open < 3;
    key[0] = key[1] = key[2] = 0;
    if (kind == K_B3) return;
    if (w == 0) {
        key[0] = 1;
        key[1] = kind == K_ADD ? 0 : 1;
        key[2] = r >= 0 ? -CN_POINTS[r] : 0;
        return;
    }
    if (kind == K_ADD && r >= 0) {
        int size = nat[r] + wild[r];
        key[1] = -size;
        key[2] = wild_card != CN_JOKER;
        if (wild[r]) key[0] = 2;
        else if (want_dirty && !want_clean) key[0] = 3;
        else { key[0] = 9; key[2] = 0; }
        return;
    }
    if (kind == K_START) {
        key[0] = (want_dirty || sum15(v->hand) > 6) ? 4 : 8;
        key[1] = -CN_POINTS[r];
        return;
    }
    if (kind == 4) {
        key[0] = 5;
        key[1] = wild_card != CN_JOKER;
        return;
    }
    key[0] = v->hand[CN_JOKER] + v->hand[CN_TWO] >= 4 ? 6 : 7;
    key[1] = a;
}

static int hf_discard(const view *v, const int8_t *m) {
    int best = -1, bk[4] = {0, 0, 0, 0};
    for (int a = A_DISCARD; a < A_NUM_CLASSIC; a++) {
        if (!m[a]) continue;
        int j = a - A_DISCARD;
        int c = j < CN_R3 ? j : j + 1;
        int key[4] = {0, 0, 0, 0};
        if (c == CN_B3) {
            /* (0, 0) */
        } else if (c == CN_JOKER || c == CN_TWO) {
            key[0] = 3;
            key[1] = CN_POINTS[c];
        } else {
            key[0] = v->hand[c] == 1 ? 1 : 2;
            key[1] = 2 * (v->known[1][c] >= 2) + (v->nat[1][c] > 0);
            key[2] = v->hand[c];
            key[3] = CN_POINTS[c];
        }
        if (best < 0 || key_less(key, bk, 4)) {
            best = a;
            memcpy(bk, key, sizeof bk);
        }
    }
    return best;
}

static int hf_action(const view *v, const int8_t *m, const int *legal, int nlegal) {
    if (v->phase == PH_DRAW) {
        if (m[A_TAKE_PAIR]) return A_TAKE_PAIR;
        if (m[A_TAKE_WILD_PAIR]) return A_TAKE_WILD_PAIR;
        if (m[A_DRAW_STOCK]) return A_DRAW_STOCK;
        return m[A_DECLINE_PILE] ? A_DECLINE_PILE : legal[0];
    }
    if (v->phase == PH_ANSWER) return A_ANSWER_YES;
    if (m[A_ASK_PARTNER]) return A_ASK_PARTNER;
    int best = -1, bk[3] = {0, 0, 0};
    for (int i = 0; i < nlegal; i++) {
        int a = legal[i];
        if (!hf_is_meld(a)) continue;
        int key[3];
        hf_key(v, a, key);
        if (best < 0 || key_less(key, bk, 3)) {
            best = a;
            memcpy(bk, key, sizeof bk);
        }
    }
    if (best >= 0) return best;
    int a = hf_discard(v, m);
    if (a >= 0) return a;
    return m[A_FINISH_TURN] ? A_FINISH_TURN : legal[0];
}

/* ------------------------------------------------------------------ entry */

int cn_heuristic_action(const float *obs, int obs_size, const int8_t *mask, int num_actions,
                        const cn_heur_params *p) {
    int legal[CN_MAXACTIONS], nlegal = 0;
    int hf = num_actions == A_NUM_HAND_AND_FOOT;
    if (num_actions != (hf ? A_NUM_HAND_AND_FOOT : A_NUM_CLASSIC)
        || obs_size != (hf ? CN_OBS_HF : CN_OBS_CLASSIC))
        return -1;
    for (int a = 0; a < num_actions; a++)
        if (mask[a]) legal[nlegal++] = a;
    if (nlegal == 0) return -1;
    if (nlegal == 1) return legal[0];
    view v;
    decode(obs, hf, &v);
    int a = hf ? hf_action(&v, mask, legal, nlegal)
               : classic_action(&v, mask, legal, nlegal, p);
    if (a < 0 || a >= num_actions || !mask[a]) a = legal[0];  /* never an illegal id */
    return a;
}
