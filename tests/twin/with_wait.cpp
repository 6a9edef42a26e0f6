/* missing_wait.cpp with the MTE2_V event pair: correct. */
#define WITH_WAIT 1
#include "missing_wait.cpp"
