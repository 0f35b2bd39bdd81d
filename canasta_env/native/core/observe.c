/* The seat-relative observation vector.
 *
 * Mirrors canasta_env/observation.py (encode): the same pieces in the same order, raw
 * counts converted to float32 and multiplied by the float32 scale vector that Python
 * builds (observation.SCALE_HAND_AND_FOOT, passed in by the binding), so the result is
 * bit-identical. Layout: see the module docstring of observation.py.
 */
#include "state.h"

int cn_obs_size(const cn_options *o) { return o->exact ? CN_OBS_HF : CN_OBS_CLASSIC; }

static const int MELD_SLOTS[12] = {4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, CN_B3};

void cn_encode(const cn_state *s, int seat, const float *scale, float *out) {
    int v[CN_OBS_HF];
    int k = 0, rel[4];
    for (int i = 0; i < 4; i++) rel[i] = (seat + i) & 3;
    int us = seat & 1, them = (seat + 1) & 1;
    for (int c = 0; c < CN_NC; c++) v[k++] = s->hands[seat][c];
    for (int i = 1; i < 4; i++)
        for (int c = 0; c < CN_NC; c++) v[k++] = s->known[rel[i]][c];
    for (int i = 0; i < 4; i++) v[k++] = cn_sum(s->hands[rel[i]]);
    for (int i = 0; i < 4; i++) v[k++] = s->red3[rel[i]];
    int teams[2] = {us, them};
    for (int ti = 0; ti < 2; ti++) {
        int t = teams[ti];
        for (int i = 0; i < 12; i++) v[k++] = s->nat[t][MELD_SLOTS[i]];
        for (int i = 0; i < 12; i++) v[k++] = s->jok[t][MELD_SLOTS[i]];
        for (int i = 0; i < 12; i++) v[k++] = s->two[t][MELD_SLOTS[i]];
    }
    int top = -1;
    int *topv = v + k;
    for (int c = 0; c < CN_NC; c++) v[k++] = 0;
    int *cont = v + k;
    for (int c = 0; c < CN_NC; c++) v[k++] = 0;
    for (int i = 0; i < s->npile; i++) cont[s->pile[i]]++;
    /* a pile set aside for the opening (phase PICKUP) stays public (RULES.md §7) */
    for (int i = 0; i < s->npending; i++) cont[s->pending[i]]++;
    if (s->npile) {
        top = s->pile[s->npile - 1];
        topv[top] = 1;
    }
    v[k++] = s->npile;
    v[k++] = s->pile_frozen != 0;
    v[k++] = s->pile_frozen || !s->opened[us];
    v[k++] = s->pile_frozen || !s->opened[them];
    v[k++] = top == CN_B3;
    v[k++] = s->nstock;
    /* shown within +-CN_OBSERVED_SCORE_LIMIT (observation.py does the same) */
    cn_score lim = CN_OBSERVED_SCORE_LIMIT;
    int su = (int)(s->scores[us] > lim ? lim : s->scores[us] < -lim ? -lim : s->scores[us]);
    int st = (int)(s->scores[them] > lim ? lim : s->scores[them] < -lim ? -lim : s->scores[them]);
    v[k++] = su > 0 ? su : 0;
    v[k++] = st > 0 ? st : 0;
    v[k++] = su < 0 ? -su : 0;
    v[k++] = st < 0 ? -st : 0;
    v[k++] = s->minimum[us];
    v[k++] = s->minimum[them];
    v[k++] = s->opened[us] != 0;
    v[k++] = s->opened[them] != 0;
    for (int p = 0; p < 6; p++) v[k++] = s->phase == p;
    for (int i = 0; i < 4; i++) v[k++] = ((s->current - seat) & 3) == i;
    v[k++] = s->turn_points;
    v[k++] = s->laid != 0;
    v[k++] = s->drew_stock != 0;
    v[k++] = s->asked == ASKED_YES;
    v[k++] = s->asked == ASKED_NO;
    v[k++] = s->must_out != 0;
    v[k++] = s->no_discard != 0;
    v[k++] = s->npending;
    if (s->o.exact) {
        for (int i = 0; i < 4; i++) v[k++] = s->in_foot[rel[i]] != 0;
        for (int i = 0; i < 4; i++) v[k++] = cn_sum(s->feet[rel[i]]);
        v[k++] = s->hand_number + 1;
        int per[2][12] = {{0}};
        for (int ti = 0; ti < 2; ti++) {
            int t = teams[ti], clean = 0, dirty = 0, wild = 0;
            for (int i = 0; i < s->nbooks[t]; i++) {
                const uint8_t *b = s->books[t][i];
                if (b[0] == CN_JOKER) per[ti][11]++;
                else if (b[0] >= CN_FOUR) per[ti][b[0] - CN_FOUR]++;  /* Python: KeyError on a black-3 book */
                if (b[0] == CN_JOKER) wild++;
                else if (b[2] + b[3]) dirty++;
                else clean++;
            }
            v[k++] = clean;
            v[k++] = dirty;
            v[k++] = wild;
        }
        for (int ti = 0; ti < 2; ti++)
            for (int i = 0; i < 12; i++) v[k++] = per[ti][i];
        v[k++] = s->wild_meld[us][0];
        v[k++] = s->wild_meld[us][1];
        v[k++] = s->wild_meld[them][0];
        v[k++] = s->wild_meld[them][1];
    }
    for (int i = 0; i < k; i++) out[i] = (float)v[i] * scale[i];
}
