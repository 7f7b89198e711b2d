#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Mutation check of the bench's statistics: each mutation is one sed edit
# of a copy of bench's statistics.c, summary.c or path.c; build/test_bench,
# rebuilt against the copy, must fail. The unmutated copy must pass.
# Needs the objects `make build/test_bench` leaves in build/.
cd "$(dirname "$0")/.." || exit 1

# The Makefile's objects and flags for test_bench and for bench/ objects.
mk() { make -s --no-print-directory "print-$1"; }
OBJS=$(mk TEST_BENCH_OBJS)
for o in $OBJS; do
	if [ ! -f "$o" ]; then
		echo "FAIL mutate: $o is missing (make build/test_bench first)"
		exit 1
	fi
done

CC=$(mk CC)
FLAGS="$(mk CPPFLAGS) $(mk CFLAGS)"
LDFLAGS=$(mk LDFLAGS)
LDLIBS=$(mk LDLIBS)
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT

# build DIR FILE: test_bench with bench/FILE.c replaced by DIR/FILE.c,
# whose object comes before libbench.a: its member there goes unused.
build() {
	local objs="$1/$2.o $OBJS"

	# shellcheck disable=SC2086
	$CC $FLAGS -c "$1/$2.c" -o "$1/$2.o" 2>"$1/cc.err" &&
		$CC $LDFLAGS -o "$1/test_bench" $objs $LDLIBS 2>>"$1/cc.err"
}

# src FILE: bench's FILE.c, in whichever of its rooms it is.
src() {
	local f

	for f in bench/"$1".c bench/*/"$1".c; do
		[ -e "$f" ] && echo "$f" && return
	done
}

# mutant DIR FILE WHAT SED: the mutation of bench's FILE.c must fail
# test_bench, which stops at its first failure.
mutant() {
	local d=$1 file=$2 what=$3 orig

	orig=$(src "$file")
	mkdir -p "$d"
	sed -e "$4" "$orig" >"$d/$file.c"
	if cmp -s "$orig" "$d/$file.c"; then
		echo "FAIL mutation did not apply: $what"
	elif ! build "$d" "$file"; then
		echo "FAIL mutation does not compile: $what"
		sed 's/^/  /' "$d/cc.err" | head -5
	elif HC_TEST_FAIL_FAST=1 timeout 300 "$d/test_bench" >/dev/null 2>&1; then
		echo "FAIL mutation survived: $what"
	else
		echo "PASS mutation killed: $what"
	fi
}

# mutate FILE WHAT SED: a mutant, as many at once as there are CPUs; their
# lines are printed in order at the end.
JOBS=$(nproc)
N=0
mutate() {
	N=$((N + 1))
	mutant "$T/$N" "$@" >"$T/$N.res" &
	while [ "$(jobs -pr | wc -l)" -ge "$JOBS" ]; do
		wait -n
	done
}

# The control: the same build of the tree's own sources passes.
mkdir -p "$T/0"
cp "$(src statistics)" "$T/0/statistics.c"
if build "$T/0" statistics && "$T/0/test_bench" >"$T/out" 2>&1; then
	echo "PASS mutate control: the unmutated copy passes"
else
	echo "FAIL mutate control: the unmutated copy fails"
	grep -m5 '^FAIL' "$T/out" "$T/0/cc.err" | sed 's/^/  /'
	exit 1
fi

S=statistics
mutate $S "a 90% interval for a 95% one" 's|(1 - level) / 2;|(1 - level);|'
mutate $S "a 99% interval for a 95% one" 's|(1 - level) / 2;|(1 - level) / 10;|'
mutate $S "the Wilcoxon critical index off by one" 's|e->lo = w\[d - 1\]|e->lo = w[d]|'
mutate $S "the signed-rank null distribution of n - 1 ranks" 's|for (k = 1; k <= n; k++)|for (k = 1; k < n; k++)|'
mutate $S "the sign test's null distribution for the signed-rank one" 's|tail_index(n, true, level)|tail_index(n, false, level)|'
mutate $S "st_min_n one round short (5 at 95%)" 's|1 - ldexp(1, 1 - n) < level|1 - ldexp(1, -n) < level|'
mutate $S "the median's order statistic off by one" 's|e->lo = s\[d - 1\]|e->lo = s[d]|'
mutate $S "Walsh averages without (x[i] + x[i]) / 2" 's|for (j = i; j < n; j++)|for (j = i + 1; j < n; j++)|'
mutate $S "Hodges-Lehmann as the median of the values" 's|e->median = (w\[(m - 1) / 2\] + w\[m / 2\]) / 2;|e->median = st_median(x, n);|'
mutate $S "the median of an even count of Walsh averages without the lower middle" 's|e->median = (w\[(m - 1) / 2\] + w\[m / 2\]) / 2;|e->median = w[m / 2];|'
mutate $S "Theil-Sen's slope per step, not per doubling" 's|s\[k++\] = (y\[j\] - y\[i\]) / (x\[j\] - x\[i\]);|s[k++] = y[j] - y[i];|'
mutate $S "growth from round 1's points in every round" 's|st_theil_sen(x, y + (size_t)r \* m, m)|st_theil_sen(x, y, m)|'
mutate $S "the modified z-score without its 0.6745" 's|0.6745 \* dev / mad > z|dev / mad > z|'
mutate $S "the outlier threshold's edge (>= z)" 's|0.6745 \* dev / mad > z|0.6745 * dev / mad >= z|'
mutate $S "the mde with 1.96 standard errors, not 2.8" 's|/ 1.959964 \* (1.959964 + 0.841621)|/ 1.959964 * 1.959964|'
mutate $S "the mde 4x too wide" 's|(e->hi - e->lo) / 2 / 1.959964|(e->hi - e->lo) * 2 / 1.959964|'
mutate $S "--target-ci stopping at the first narrow interval" 's|return s->met >= ST_STOP_CHECKS;|return s->met >= 1;|'
mutate $S "--target-ci's edge (a half-width equal to the target misses it)" 's|s->met = h <= target|s->met = h < target|'
mutate $S "the Wilcoxon critical index off by one only for n > 8" 's|^\treturn d;$|\treturn ranks \&\& n > 8 ? d - 1 : d;|'
mutate $S "t quantiles that ignore their degrees of freedom" 's|if (isinf(df))|if (1)|'
mutate $S "Holm as Bonferroni" 's|double v = p\[idx\[i\]\] \* (m - i);|double v = p[idx[i]] * m;|'
mutate $S "Holm without its running maximum" 's|run = v > run ? v : run;|run = v;|'
mutate $S "across runs, the within-run variances even with runs a side" 's|if (na >= 2 \&\& nb >= 2) {|if (0) {|'
mutate $S "across runs, no floor at the runs' own errors" 's|r->own = isnan(pa + pb) ? 0 : sqrt(1 / pa + 1 / pb);|r->own = 0;|'
mutate $S "compare's p from the spread alone" 's|return own > p ? own : p;|return p;|'
mutate $S "the pooled spread on na + nb - 1 df" 's|r->df = na + nb - 2;|r->df = na + nb - 1;|'
mutate $S "a window quantile that ignores its p (the median of the windows)" 's|h = (n - 1) \* p;|h = (n - 1) * 0.5;|'
S=summary
mutate $S "rows' intervals at 90%" 's|BENCH_LEVEL|0.90|g'
mutate $S "rows' intervals at 99%" 's|BENCH_LEVEL|0.99|g'
mutate $S "significant only for positive deltas" 's#v->significant = v->delta.lo > 0 || v->delta.hi < 0;#v->significant = v->delta.lo > 0;#'
mutate $S "pairing by array index instead of round number" 's|base\[r->rd\[i\].round\]|base[i + 1]|g'
mutate $S "the plain ratio for the log-ratio" 's|st_hl_log(x, \*n, BENCH_LEVEL, &v->ratio)|st_hl(x, *n, BENCH_LEVEL, \&v->ratio)|'
mutate $S "outliers on raw costs, not paired deltas" 's|s->outliers = flag_rounds(r, base, x, n, flag);|(void)base;|'
mutate $S "the mde as the delta's half-width" 's|v->mde_ns = st_mde(&v->delta);|v->mde_ns = (v->delta.hi - v->delta.lo) / 2;|'
mutate $S "the drift threshold's edge (>= 1.10)" 's|r->sum.drift > BENCH_DRIFT_MAX|r->sum.drift >= BENCH_DRIFT_MAX|'
mutate $S "contended at the threshold itself (>=)" 's|r->rd\[i\].pkt_ns > BENCH_CONTENDED \* min|r->rd[i].pkt_ns >= BENCH_CONTENDED * min|'
mutate $S "contended rounds kept in the costs" 's|rd->ns = rd->contended ? NAN : rd->pkt_ns;|rd->ns = rd->pkt_ns;|'
mutate $S "an INVALID row's estimates kept" 's#if (!x || !flag || r->reason\[0\])#if (!x || !flag)#'
mutate $S "a run under 6 rounds: a row INVALID for a lost round" 's|if (r->nrd >= st_min_n(BENCH_LEVEL) \&\& n < st_min_n(BENCH_LEVEL)) {|if (n < st_min_n(BENCH_LEVEL) \&\& n < r->nrd) {|'
mutate $S "a row short of rounds at the minimum itself (<=)" 's|\&\& n < st_min_n(BENCH_LEVEL)) {|\&\& n <= st_min_n(BENCH_LEVEL)) {|'
mutate $S "unresolved without spanning 0" 's|d->lo <= 0 \&\& d->hi >= 0 \&\&|d->hi >= 0 \&\&|'
mutate $S "unresolved on the interval's full width" 's|(d->hi - d->lo) / 2 >|(d->hi - d->lo) >|'
mutate topo "a round's cost at the windows' 0.1 quantile, not the fastest" 's|st_quantile(x, n, BENCH_WINDOW_Q)|st_quantile(x, n, 0.1)|'
# bench compare's rules.
D=diff
mutate $D "rounds paired with the baseline's by array index" 's|if (jp_num(\&brd->kid\[k\], "round", NAN) == round)|if (k == i)|'
mutate $D "no correction for the rows compared" 's|if (r->p_holm < 1 - BENCH_LEVEL)|if (r->p < 1 - BENCH_LEVEL)|'
mutate $D "same when the estimate, not the interval, is within the margin" 's|else if (e->lo >= 1 - m \&\& e->hi <= 1 + m)|else if (fabs(e->median - 1) <= m)|'
mutate $D "runs of different boots taken as independent runs" 's|boots = !one_boot(s);|boots = false;|'
mutate $D "--dev's rows coarser than the threshold judged" 's|} else if (dev \&\& opts->threshold \&\& c->mde_pct > opts->threshold) {|} else if (0) {|'
mutate $D "a generator-bound row judged" 's|if (flagged(row, "generator-bound") \&\& !\*verdict) {|if (0) {|'
mutate $D "a boot's runs without a ratio counted in its mean ratio" 's|cb += !isnan(s->base\[m\]);|cb++;|'
# The path check's grammar and judge.
P=path
mutate $P "a final '*' ignored" "s|if (len \&\& pat\[len - 1\] == '\\*')|if (0)|"
mutate $P "a '!' group past any share of the samples" 's|n > stray \* t->samples|n > 0|'
mutate $P "a program's caller allowed a stray share" "s|memchr(g, '>', len) ? 0 : BENCH_PATH_STRAY|BENCH_PATH_STRAY|"
mutate $P "runs meet any group" 's|counted_only(g, len, t->counted)|1|'
mutate $P "runs of 0 meet a group of what counted" 's|t->runs > 0 \&\&|t->runs >= 0 \&\&|'
mutate $P "a group met if one alternative was counted" 's|if (!found)|if (found)|'
mutate $P "alternatives only the first of a group" 's#\*alen = strcspn(\*g, "|");#*alen = *len;#'
wait
for i in $(seq "$N"); do
	cat "$T/$i.res"
done
! grep -q '^FAIL' "$T"/*.res
