/* plan.c: discovery by op class (DESIGN.md section 5). */
