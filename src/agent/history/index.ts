export { createHistoryPolicy, HistoryLayout, isObservation, PLACEHOLDER_SAMPLE } from "./mask.js";
export { type RequestRecord, recordRequest, requestRecord } from "./record.js";
export { contentText, messageChars, sentMessage } from "./sent-message.js";
export type { HistoryPolicy, RequestMoment, RequestView } from "./types.js";
