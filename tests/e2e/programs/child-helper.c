/* child-helper.c - a small program without MPI, built with commhint cc, that
 * child.c runs with system() from inside a traced MPI run: it computes and
 * prints a sum.  argv[1]: how many elements. */
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 1000;
    double s = 0;
    for (int i = 0; i < n; i++)
        s += i * 0.5;
    printf("helper: %.1f\n", s);
    return 0;
}
