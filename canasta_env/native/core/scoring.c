/* Scoring a hand: the score sheet and the end of a hand.
 *
 * Mirrors canasta_env/engine/scoring.py (score_partnership, end_hand); rules:
 * docs/RULES.md sections 2.15, 2.16 and 3.9. Sheet rows: table, canasta_bonus,
 * red_threes, going_out, hand_penalty, previous (hand_score and total are derived).
 */
#include "state.h"

static void score_partnership(const cn_state *s, int team, int going_out, cn_score *sheet) {
    const cn_options *o = &s->o;
    const int *nat = s->nat[team], *jok = s->jok[team], *two = s->two[team];
    int table = 0, bonus = 0;
    for (int r = 0; r < CN_NC; r++) {
        int n = nat[r];
        if (!n) continue;
        int w = jok[r] + two[r];
        table += n * CN_POINTS[r] + jok[r] * CN_POINTS[CN_JOKER] + two[r] * CN_POINTS[CN_TWO];
        if (n + w >= o->canasta_size) bonus += w ? o->mixed_canasta_bonus : o->natural_canasta_bonus;
    }
    for (int i = 0; i < s->nbooks[team]; i++) {
        const uint8_t *b = s->books[team][i];
        table += b[1] * CN_POINTS[b[0]] + b[2] * CN_POINTS[CN_JOKER] + b[3] * CN_POINTS[CN_TWO];
        if (b[0] == CN_JOKER) bonus += o->wild_book_bonus;
        else bonus += (b[2] + b[3]) ? o->mixed_canasta_bonus : o->natural_canasta_bonus;
    }
    table += s->wild_meld[team][0] * CN_POINTS[CN_JOKER] + s->wild_meld[team][1] * CN_POINTS[CN_TWO];
    int red = s->red3[team] + s->red3[team + 2];
    int r3 = red >= 2 * o->decks ? o->red_three_all_bonus : o->red_three_bonus * red;
    int melded = s->nbooks[team] > 0 || s->wild_meld[team][0] || s->wild_meld[team][1];
    for (int r = 0; r < CN_NC; r++) melded |= nat[r] != 0;
    if (!melded && o->red_three_negative_unmelded) r3 = -r3;
    int penalty = 0;
    const int *hs[4] = {s->hands[team], s->hands[team + 2], s->feet[team], s->feet[team + 2]};
    for (int i = 0; i < 4; i++) {
        int p = 0;
        for (int c = 0; c < CN_NC; c++) p += hs[i][c] * CN_POINTS[c];
        penalty -= p + hs[i][CN_R3] * o->red_three_hand_penalty;
    }
    sheet[0] = table;
    sheet[1] = bonus;
    sheet[2] = r3;
    sheet[3] = going_out;
    sheet[4] = penalty;
    sheet[5] = s->scores[team];
}

void cn_end_hand(cn_state *s) {
    const cn_options *o = &s->o;
    for (int team = 0; team < 2; team++) {
        int bonus = 0;
        if (s->went_out >= 0 && (s->went_out & 1) == team)
            bonus = s->concealed ? o->concealed_going_out_bonus : o->going_out_bonus;
        score_partnership(s, team, bonus, s->sheets[team]);
    }
    s->has_sheets = 1;
    for (int team = 0; team < 2; team++) {
        const cn_score *sh = s->sheets[team];
        s->scores[team] = sh[5] + sh[0] + sh[1] + sh[2] + sh[3] + sh[4];
    }
    cn_event_add(s, EV_HAND_OVER, 0, 0);
    int over = o->rounds ? (s->hand_number + 1 >= o->rounds)
                         : ((s->scores[0] > s->scores[1] ? s->scores[0] : s->scores[1]) >= o->target_score);
    if (over) {
        cn_score a = s->scores[0], b = s->scores[1];
        s->winner = a > b ? 0 : b > a ? 1 : -1;
        s->phase = PH_GAME_OVER;
    } else {
        s->phase = PH_HAND_OVER;
    }
}
