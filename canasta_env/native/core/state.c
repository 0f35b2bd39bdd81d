/* State queries and option helpers.
 *
 * Mirrors canasta_env/engine/state.py (book_counts, closed_books, start_turn) and the
 * methods of canasta_env/engine/options.py (minimum_for, exact_melds).
 * Rules: docs/RULES.md sections 2.4, 2.7, 2.8, 3.2, 3.4.
 */
#include "state.h"

const int CN_POINTS[CN_NC] = {50, 20, 5, 0, 5, 5, 5, 5, 10, 10, 10, 10, 10, 10, 20};

void cn_closed_books(const cn_state *s, int team, int *clean, int *dirty) {
    int c = 0, d = 0;
    for (int i = 0; i < s->nbooks[team]; i++) {
        const uint8_t *b = s->books[team][i];
        if (b[0] != CN_JOKER && b[2] + b[3]) d++;
        else c++;
    }
    *clean = c;
    *dirty = d;
}

void cn_book_counts(const cn_state *s, int team, int *clean, int *dirty) {
    int size = s->o.canasta_size, c = 0, d = 0, bc, bd;
    const int *n = s->nat[team], *j = s->jok[team], *t = s->two[team];
    for (int r = 0; r < CN_NC; r++) {
        if (n[r] && n[r] + j[r] + t[r] >= size) {
            if (j[r] + t[r]) d++;
            else c++;
        }
    }
    cn_closed_books(s, team, &bc, &bd);
    *clean = c + bc;
    *dirty = d + bd;
}

void cn_options_derive(cn_options *o) {
    o->exact = (o->max_meld_size || o->wilds_at_most_half_naturals || o->wild_melds ||
                o->clean_books_to_go_out || o->dirty_books_to_go_out || o->foot_size) ? 1 : 0;
    o->num_actions = o->wild_melds ? A_NUM_HAND_AND_FOOT : A_NUM_CLASSIC;
}

int cn_minimum_for(const cn_options *o, cn_score score, int round_index) {
    if (o->n_round_min) {
        int i = round_index < o->n_round_min - 1 ? round_index : o->n_round_min - 1;
        return o->round_min[i];
    }
    int need = o->opening_min[0];
    for (int i = 0; i < o->n_opening; i++)
        if (score >= o->opening_lo[i]) need = o->opening_min[i];
    return need;
}

void cn_start_turn(cn_state *s) {
    s->drew_stock = 0;
    s->turn_points = 0;
    s->laid = 0;
    s->added_old = 0;
    s->n_new_ranks = 0;
    s->npending = 0;
    s->asked = NOT_ASKED;
    s->must_out = 0;
    s->no_discard = 0;
}
