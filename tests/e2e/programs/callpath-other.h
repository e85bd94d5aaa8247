/* callpath-other.h - the helper of callpath.c that lives in another file. */
void exchange_there(double *s, double *r, int n, int peer);
