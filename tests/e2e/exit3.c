/* Ends through exit(3) from below main: mpiwasm must exit with status 3. */
#include <stdio.h>
#include <stdlib.h>

static void leave(int status)
{
	printf("leaving with %d\n", status);
	exit(status);
}

int main(void)
{
	leave(3);
	return 0;
}
