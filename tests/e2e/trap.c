/* Divides by zero: i32.div_s traps, mpiwasm reports the trap and fails. */
#include <stdio.h>

volatile int zero = 0;

__attribute__((noinline)) static int divide(int a, int b) { return a / b; }

int main(void)
{
	printf("before the trap\n");
	fflush(stdout);
	return divide(7, zero);
}
