/* Classic's exact formulas: can the turn still be completed?
 *
 * Mirrors canasta_env/engine/feasibility.py function by function (allin_points,
 * best_points, _meld_all, can_go_out). Rules: docs/RULES.md sections 2.8-2.11 and 6.
 */
#include "state.h"

#define JV 50
#define TV 20

void cn_allin_points(const int *hand, const int *nat, const int *wild, int cap, int *pts_out,
                     int *left_out) {
    int pts = 0, left = hand[CN_B3], capacity = 0, npairs = 0;
    int pairs[CN_NRANKS];
    for (int r = CN_FOUR; r <= CN_ACE; r++) {
        int n = hand[r];
        if (nat[r]) {
            capacity += cap - wild[r];
            pts += n * CN_POINTS[r];
        } else if (n >= 3) {
            pts += n * CN_POINTS[r];
            capacity += cap;
        } else if (n == 2) {
            pairs[npairs++] = 2 * CN_POINTS[r];
        } else if (n == 1) {
            left++;
        }
    }
    int nj = hand[CN_JOKER];
    int nw = nj + hand[CN_TWO];
    int k = cap > 0 ? (npairs < nw ? npairs : nw) : 0;
    if (k) {
        if (k < npairs) {  /* sort descending (insertion sort, at most 11) */
            for (int i = 1; i < npairs; i++) {
                int v = pairs[i], j = i - 1;
                while (j >= 0 && pairs[j] < v) { pairs[j + 1] = pairs[j]; j--; }
                pairs[j + 1] = v;
            }
        }
        for (int i = 0; i < k; i++) pts += pairs[i];
    }
    left += 2 * (npairs - k);
    int room = capacity + k * (cap - 1);
    int placed = k + (nw - k < room ? nw - k : room);
    int pj = nj < placed ? nj : placed;
    pts += JV * pj + TV * (placed - pj);
    left += nw - placed;
    *pts_out = pts;
    *left_out = left;
}

int cn_best_points(int *hand, const int *nat, const int *wild, int cap, int keep) {
    int pts, left;
    cn_allin_points(hand, nat, wild, cap, &pts, &left);
    if (left >= keep) return pts;
    int best = -1;
    for (int c = 0; c < CN_NC; c++) {
        if (hand[c]) {
            hand[c]--;
            int b = cn_best_points(hand, nat, wild, cap, keep - 1);
            hand[c]++;
            if (b > best) best = b;
        }
    }
    return best;
}

static int meld_all(const int *rest, const int *nat, const int *wild, int cap, int size, int have,
                    int needed, int need_pts, int black_three_melds, int black_three_max) {
    int b3 = rest[CN_B3];
    if (b3 && (b3 < 3 || b3 > black_three_max || !black_three_melds)) return 0;
    int pts = 5 * b3, pairs = 0, capacity = 0, ncand = 0;
    int cbase[CN_NRANKS], croom[CN_NRANKS];
    for (int r = CN_FOUR; r <= CN_ACE; r++) {
        int n = rest[r], room, base;
        if (nat[r]) {
            room = cap - wild[r];
            base = nat[r] + wild[r] + n;
        } else if (n >= 3) {
            room = cap;
            base = n;
        } else if (n == 2) {
            if (cap == 0) return 0;
            pairs++;
            room = cap - 1;
            base = 3;
        } else if (n == 1) {
            return 0;
        } else {
            continue;
        }
        pts += n * CN_POINTS[r];
        capacity += room;
        if (have < needed && !(nat[r] && nat[r] + wild[r] >= size)) {
            cbase[ncand] = base;
            croom[ncand] = room;
            ncand++;
        }
    }
    int nw = rest[CN_JOKER] + rest[CN_TWO];
    if (pairs > nw || nw - pairs > capacity) return 0;
    pts += JV * rest[CN_JOKER] + TV * rest[CN_TWO];
    if (pts < need_pts) return 0;
    if (have >= needed) return 1;
    int free_w = nw - pairs, nd = 0;
    int def[CN_NRANKS];
    for (int i = 0; i < ncand; i++) {
        if (size - cbase[i] <= croom[i]) {
            int d = size - cbase[i];
            def[nd++] = d > 0 ? d : 0;
        }
    }
    for (int i = 1; i < nd; i++) {  /* ascending */
        int v = def[i], j = i - 1;
        while (j >= 0 && def[j] > v) { def[j + 1] = def[j]; j--; }
        def[j + 1] = v;
    }
    int made = have;
    for (int i = 0; i < nd; i++) {
        if (def[i] > free_w) break;
        free_w -= def[i];
        made++;
        if (made >= needed) return 1;
    }
    return made >= needed;
}

int cn_can_go_out(int *hand, const int *nat, const int *wild, int cap, int size, int have,
                  int needed, int need_pts, int may_discard, int black_three_melds,
                  int black_three_max) {
    int stranded = 0, last = -1;
    int b3 = hand[CN_B3];
    if (b3 && (b3 < 3 || !black_three_melds)) {
        stranded += b3;
        last = CN_B3;
    }
    for (int r = CN_FOUR; r <= CN_ACE; r++) {
        if (hand[r] == 1 && !nat[r]) {
            stranded++;
            last = r;
        }
    }
    if (stranded > (may_discard ? 1 : 0)) return 0;
    if (stranded == 1) {
        hand[last]--;
        int ok = meld_all(hand, nat, wild, cap, size, have, needed, need_pts, black_three_melds,
                          black_three_max);
        hand[last]++;
        return ok;
    }
    if (meld_all(hand, nat, wild, cap, size, have, needed, need_pts, black_three_melds,
                 black_three_max)) return 1;
    if (!may_discard) return 0;
    for (int c = 0; c < CN_NC; c++) {
        if (hand[c] && c != CN_R3) {
            hand[c]--;
            int ok = meld_all(hand, nat, wild, cap, size, have, needed, need_pts, black_three_melds,
                          black_three_max);
            hand[c]++;
            if (ok) return 1;
        }
    }
    return 0;
}
