/* hello - the trivial program for the start-up measurement. */
#include <stdio.h>

int main(void)
{
	puts("hello");
	return 0;
}
