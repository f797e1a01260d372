/* ldprint.c - printf and scanf of long double (binary128 in wasm32, the
 * x87 format natively: the values are exact in both, so the output is the
 * same). */
#include <stdio.h>
#include <stdlib.h>

int main(void)
{
	long double x = 1.25L, y = 0, z = 0;
	char buf[64];
	printf("%Lf %Lg %.3Le %10.4Lf|\n", x, x * 2, x * 1000, -x / 4);
	if (sscanf("3.5 -0.0625", "%Lf %Lg", &y, &z) != 2)
		return 1;
	printf("%.2Lf %Lg\n", y, z);
	snprintf(buf, sizeof buf, "%.1Lf", y + z);
	long double back = strtold(buf, NULL);
	printf("%s %Lg\n", buf, back);
	return 0;
}
