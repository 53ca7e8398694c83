/**
 * An RPC answer that is already JSON text, for answers that can grow large (a 10,000-unit run is ~2 MB).
 * Small answers travel inline; a larger one is written to the blob store the apps share and only its key
 * travels, because every gateway instance reads every message of the shared reply topic. The gateway
 * sends the text (or streams the blob) to the client as it is, and deletes the blob once read; the service
 * that wrote it sweeps blobs nobody read (the caller gave up or crashed).
 */
export type JsonReply = { json: string } | { blob: { key: string; size: number } };
