/* main.c: see docs/design.md §4. */
