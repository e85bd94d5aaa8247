/* extern-calls-helper.c - built WITH the pass, in its own file, by
 * tests/e2e/extern-calls.sh: a call into it from extern-calls.c hands
 * it a pointer, but its reads are in the trace, so the call is no fence. */
double helper_sum(const double *v, int n)
{
    double s = 0;
    for (int i = 0; i < n; i++)
        s += v[i];
    return s;
}
