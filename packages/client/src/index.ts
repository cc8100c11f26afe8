export { SluiceClient } from "./client.js";
export { SluiceApiError } from "./errors.js";
export { Transport, type ClientOptions, type Query, type RequestOptions } from "./transport.js";
