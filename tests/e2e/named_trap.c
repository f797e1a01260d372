/* Traps in a named function that -O2 cannot inline (it is called through
 * a pointer): the trap message must name it, which needs the name section
 * to survive clang's wasm-opt pass. */
#include <stdio.h>

volatile int zero = 0;

int divide_by(int a, int b) { return a / b; }

int (*volatile op)(int, int) = divide_by;

int main(void)
{
	printf("before the trap\n");
	fflush(stdout);
	return op(7, zero);
}
