/** The JWT secret of the test instances (a constant: no test depends on its value, only on its being set). */
export const TEST_JWT_SECRET = "0123456789abcdef".repeat(4);
