/* main.c: cites docs/guide.md §2.1 and docs/guide.md §1. */
int main (void) { return 0; }
