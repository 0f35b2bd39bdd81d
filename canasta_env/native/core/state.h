/* The state of one game and the options it is played under.
 *
 * Mirrors canasta_env/engine/state.py (State, Phase, the queries), cards.py (card
 * classes, points), actions.py (the action ids) and options.py (RulesOptions: every
 * field). Rules: docs/RULES.md sections 1 (cards), 2 and 3 (the rules), 5 (actions).
 *
 * Conventions as in Python: seats 0..3, partnership seat & 1; hands, melds and feet are
 * count vectors over the 15 card classes; the stock, pile and pending pile are arrays of
 * card classes with the top card last.  One cn_state per game, fixed size, no pointers:
 * a batch of games is a plain array of them.
 */
#ifndef CN_STATE_H
#define CN_STATE_H

#include <stdint.h>

#define CN_NC 15
#define CN_JOKER 0
#define CN_TWO 1
#define CN_B3 2
#define CN_R3 3
#define CN_FOUR 4
#define CN_ACE 14
#define CN_NRANKS 11          /* meld ranks 4..A */
#define CN_MAXCARDS 480       /* 8 decks + 40 jokers = 456 */
#define CN_MAXBOOKS 128
#define CN_MAXMINS 32
#define CN_MAXEVENTS 128
/* cumulative scores and score-sheet rows: 64 bits (canasta_env/engine/limits.py:
 * |score| <= SCORE_LIMIT = 10^15; one hand's row <= HAND_POINTS_LIMIT, inside 32 bits) */
typedef long long cn_score;
/* the largest |score| an observation shows (limits.OBSERVED_SCORE_LIMIT) */
#define CN_OBSERVED_SCORE_LIMIT 10000000

/* action ids (canasta_env/engine/actions.py; checked against Python by the binding) */
enum {
    A_DRAW_STOCK = 0, A_TAKE_PAIR = 1, A_TAKE_NAT_JOKER = 2, A_TAKE_NAT_TWO = 3,
    A_TAKE_ONTO_MELD = 4, A_DECLINE_PILE = 5, A_START_MELD = 6, A_ADD_TO_MELD = 39,
    A_MELD_BLACK_THREES = 72, A_ASK_PARTNER = 73, A_ANSWER_YES = 74, A_ANSWER_NO = 75,
    A_FINISH_TURN = 76, A_DISCARD = 77, A_NUM_CLASSIC = 91, A_START_WILD_MELD = 91,
    A_ADD_TO_WILD_MELD = 95, A_TAKE_WILD_PAIR = 97, A_NUM_HAND_AND_FOOT = 98
};
#define CN_MAXACTIONS 98

/* Phase (state.py) */
enum { PH_DRAW = 0, PH_PICKUP = 1, PH_MELD = 2, PH_ANSWER = 3, PH_HAND_OVER = 4,
       PH_GAME_OVER = 5 };
enum { NOT_ASKED = 0, ASKED_YES = 1, ASKED_NO = 2 };

/* events of the Python log besides {"seat", "action"} */
enum { EV_RED3 = 1, EV_DECLINED = 2, EV_BOOK = 3, EV_FOOT = 4, EV_OUT = 5, EV_HAND_OVER = 6 };

/* The int and bool fields of RulesOptions (canasta_env/engine/options.py), each once:
 * this list declares them in cn_options and makes the name / offset table
 * CN_OPTION_FIELDS (state.c) that the binding fills them from, by name; the binding
 * checks at import that these names are exactly RulesOptions' int and bool fields. */
#define CN_OPTION_INTS(X) \
    X(decks) X(jokers) X(hand_size) X(target_score) X(max_wilds_per_meld) X(canasta_size) \
    X(natural_canasta_bonus) X(mixed_canasta_bonus) X(red_three_bonus) \
    X(red_three_all_bonus) X(going_out_bonus) X(concealed_going_out_bonus) \
    X(canastas_to_go_out) X(black_three_freezes) X(red_three_last_card_may_meld) \
    X(one_card_pile_restriction) X(ask_partner_required) X(foot_size) X(rounds) \
    X(draw_count) X(max_meld_size) X(wilds_at_most_half_naturals) X(wild_melds) \
    X(wild_book_bonus) X(clean_books_to_go_out) X(dirty_books_to_go_out) \
    X(pile_pair_only) X(pile_wild_pair) X(pile_take_limit) X(red_three_negative_unmelded) \
    X(red_three_hand_penalty) X(black_three_meld_max) X(black_three_melds)
#define CN_DECLARE_INT(name) int name;

typedef struct {
    CN_OPTION_INTS(CN_DECLARE_INT)
    /* the two tables of RulesOptions */
    int n_opening;                          /* opening_minimums: (lowest score, minimum) */
    cn_score opening_lo[CN_MAXMINS];
    int opening_min[CN_MAXMINS];
    int n_round_min, round_min[CN_MAXMINS];
    /* derived (RulesOptions.exact_melds, actions.num_actions) */
    int exact, num_actions;
} cn_options;

typedef struct { int8_t type, a, b; } cn_event;

typedef struct {
    cn_options o;
    /* the game */
    int hand_number, dealer, winner;        /* winner: 0 / 1, -1 tie, -2 none (None) */
    cn_score scores[2];
    /* the hand */
    int phase, current;
    int hands[4][CN_NC], known[4][CN_NC], feet[4][CN_NC];
    int red3[4], in_foot[4], seat_melded[4];
    int nstock, npile, pile_frozen;
    uint8_t stock[CN_MAXCARDS], pile[CN_MAXCARDS];
    int nat[2][CN_NC], jok[2][CN_NC], two[2][CN_NC];
    int nbooks[2];
    uint8_t books[2][CN_MAXBOOKS][4];        /* rank (JOKER: wild book), nat, jok, two */
    int wild_meld[2][2];
    int opened[2], minimum[2];
    int went_out, concealed;                 /* went_out -1: None */
    long long decisions;
    int has_sheets;
    cn_score sheets[2][6];  /* table, canasta_bonus, red_threes, going_out, hand_penalty, previous */
    /* the turn */
    int drew_stock, turn_points, laid, added_old, n_new_ranks;
    int new_ranks[CN_NC];
    int npending;
    uint8_t pending[CN_MAXCARDS];
    int asked, must_out, no_discard;
    /* events of the last apply / deal, for the Python log */
    int nevents;
    cn_event events[CN_MAXEVENTS];
    /* the native deal's generator */
    uint64_t rng;
} cn_state;

extern const int CN_POINTS[CN_NC];

/* CN_OPTION_INTS as data: each field's name and byte offset in cn_options */
typedef struct { const char *name; int offset; } cn_option_field;
extern const cn_option_field CN_OPTION_FIELDS[];
extern const int CN_NUM_OPTION_FIELDS;

/* state.py queries */
/* the core's generator: splitmix64 steps (deal.c, search.c) */
static inline uint64_t cn_next64(uint64_t *x) {
    uint64_t z = (*x += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}
/* uniform in 0..n-1, n >= 1 (Lemire's multiply-and-reject) */
static inline uint32_t cn_below(uint64_t *rng, uint32_t n) {
    uint64_t m = (uint64_t)(uint32_t)(cn_next64(rng) >> 32) * n;
    uint32_t l = (uint32_t)m;
    if (l < n) {
        uint32_t t = (uint32_t)(-n) % n;
        while (l < t) {
            m = (uint64_t)(uint32_t)(cn_next64(rng) >> 32) * n;
            l = (uint32_t)m;
        }
    }
    return (uint32_t)(m >> 32);
}
/* Fisher-Yates, from the last card down (as Python's random.shuffle) */
static inline void cn_shuffle(uint8_t *a, int n, uint64_t *rng) {
    for (int i = n - 1; i > 0; i--) {
        int j = (int)cn_below(rng, (uint32_t)(i + 1));
        uint8_t t = a[i];
        a[i] = a[j];
        a[j] = t;
    }
}
static inline int cn_is_wild(int c) { return c == CN_JOKER || c == CN_TWO; }
static inline int cn_to_move(const cn_state *s) {
    if (s->phase == PH_ANSWER) return (s->current + 2) & 3;
    if (s->phase >= PH_HAND_OVER) return -1;
    return s->current;
}
static inline int cn_foot_pending(const cn_state *s, int seat) {
    return s->o.foot_size > 0 && !s->in_foot[seat];
}
static inline int cn_wild_ok(const cn_state *s, int n, int w) {
    return w <= s->o.max_wilds_per_meld && (!s->o.wilds_at_most_half_naturals || 2 * w <= n);
}
static inline int cn_sum(const int *v) {
    int t = 0;
    for (int c = 0; c < CN_NC; c++) t += v[c];
    return t;
}
static inline void cn_event_add(cn_state *s, int type, int a, int b) {
    if (s->nevents < CN_MAXEVENTS) {
        cn_event *e = &s->events[s->nevents++];
        e->type = (int8_t)type; e->a = (int8_t)a; e->b = (int8_t)b;
    }
}
void cn_closed_books(const cn_state *s, int team, int *clean, int *dirty);
void cn_book_counts(const cn_state *s, int team, int *clean, int *dirty);
void cn_options_derive(cn_options *o);
int cn_minimum_for(const cn_options *o, cn_score score, int round_index);
void cn_start_turn(cn_state *s);

/* deal.c */
void cn_seed(cn_state *s, uint64_t seed);
void cn_deal(cn_state *s);
void cn_new_game(cn_state *s, uint64_t seed, int dealer);
/* a new game at cumulative scores (score0, score1), starting in round first_round (0-based) */
void cn_new_game_at(cn_state *s, uint64_t seed, int dealer, cn_score score0, cn_score score1,
                    int first_round);
int cn_next_hand(cn_state *s);

/* feasibility.c (Classic formulas) */
void cn_allin_points(const int *hand, const int *nat, const int *wild, int cap, int *pts, int *left);
int cn_best_points(int *hand, const int *nat, const int *wild, int cap, int keep);
int cn_can_go_out(int *hand, const int *nat, const int *wild, int cap, int size, int have,
                  int needed, int need_pts, int may_discard, int black_three_melds,
                  int black_three_max);

/* exact.c (Hand and Foot search) */
int cn_wild_meld_books(const cn_options *o, int s0, int x);
int cn_max_points(const int *hand, const int *nat, const int *wild, int wm,
                  const cn_options *o, int keep);
int cn_can_meld_all(const int *hand, const int *nat, const int *wild, int wm,
                    const cn_options *o, int have_clean, int have_dirty, int need_clean,
                    int need_dirty, int need_books, int need_pts, int black_three_melds);
int cn_rank_nonempty(const cn_options *o, int n, int w, int n0, int w0);

/* completion.c */
int cn_turn_feasible(const cn_state *s, int *hand, const int *nat, const int *wild, int tp,
                     int laid, const int *pending, int npending, int must_out, int asked,
                     int drew_stock, int wm);

/* legality.c: sorted legal ids into out (CN_MAXACTIONS), returns their number */
int cn_legal_actions(const cn_state *s, int *out);

/* transitions.c */
void cn_apply(cn_state *s, int action);

/* scoring.c */
void cn_end_hand(cn_state *s);

/* observe.c */
int cn_obs_size(const cn_options *o);
void cn_encode(const cn_state *s, int seat, const float *scale, float *out);

/* heuristic.c: the rule-based policy (canasta_env/policies.py HeuristicPolicy) from one
 * seat's observation (float32) and mask (int8 0 / 1). Offsets of the observation pieces
 * it reads (observation.py PIECES; checked against Python by the binding). */
enum {
    CN_O_HAND = 0, CN_O_KNOWN_LEFT = 15, CN_O_KNOWN_PARTNER = 30, CN_O_KNOWN_RIGHT = 45,
    CN_O_HAND_SIZES = 60, CN_O_RED_THREES = 64, CN_O_MELDS_US = 68, CN_O_MELDS_THEM = 104,
    CN_O_PILE_CONTENTS = 155, CN_O_PILE_SIZE = 170, CN_O_PILE_FROZEN = 171,
    CN_O_STOCK_SIZE = 175, CN_O_OPENED = 182, CN_O_PHASE = 184, CN_O_TURN_STATE = 194,
    CN_O_BOOKS_US = 211, CN_OBS_CLASSIC = 202, CN_OBS_HF = 245
};
/* HeuristicPolicy's constructor parameters: max_wilds_per_meld (cap), canasta_size,
 * canastas_to_go_out (needed), stop_stock, start_meld_hand, the pack (deck_counts), and
 * the style parameters (canasta_env/policies/styles.py STYLE_PARAMS: names, defaults and
 * ranges, checked by the binding before they are copied here) */
typedef struct {
    int cap, size, needed, stop_stock, start_meld_hand;
    int pack[CN_NC];
    int take_wild_pile, keep_cards, wild_slack, pair_wild_hand, out_margin, close_hand,
        freeze_pile;
    double danger_weight, keep_pair, keep_triple, keep_melded, value_weight, freeze_cost;
} cn_heur_params;
/* the heuristic's action; -1 when the sizes are not a layout's or no action is legal */
int cn_heuristic_action(const float *obs, int obs_size, const int8_t *mask, int num_actions,
                        const cn_heur_params *p);
/* policies.p_at_least for population <= CN_MAXCARDS, successes <= population */
double cn_p_at_least(int k, int population, int successes, int draws);

/* search.c: determinised rollouts of the heuristic for the seat on turn */
void cn_determinise(cn_state *s, int seat, uint64_t *rng);
/* determinisation d of a search seeded with seed (the deals cn_search_values uses) */
void cn_search_determinisation(cn_state *s, int seat, uint64_t seed, int d);
/* out[i * determinisations + d]: the hand score difference (points, the seat's partnership
 * minus the other) after legal action i in determinisation d; CN_SEARCH_NONE where the
 * rollout passed max_decisions. Returns the rollouts that finished, or -1 when its scratch
 * states could not be allocated. Reentrant: it reads root, legal, scale and p and writes
 * only out, so calls on different data may run in parallel threads (without the GIL). */
#define CN_SEARCH_NONE (-1000000000)
int cn_search_values(const cn_state *root, const int *legal, int n, int determinisations,
                     uint64_t seed, const float *scale, const cn_heur_params *p,
                     int max_decisions, int *out);

#endif
