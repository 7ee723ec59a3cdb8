// @ts-check
/**
 * Shapes of the API's answers the tool reads: the schemas of the generated API types
 * (types/api.d.ts, from the OpenAPI document), under the names the commands use. Types only.
 *
 * @typedef {import('./api.mjs').Schemas} Schemas
 * @typedef {Schemas['Project']} Project
 * @typedef {Schemas['Site']} Site
 * @typedef {Schemas['Database']} Database
 * @typedef {Schemas['Bucket']} Bucket
 * @typedef {Schemas['AuthApp']} AuthApp
 * @typedef {Schemas['Connection']} Connection
 * @typedef {Schemas['AvailableConnection']} Available
 * @typedef {Schemas['DatabaseSite'] | Schemas['BucketSite']} ServiceSite
 * @typedef {Connection['kind']} Kind
 * @typedef {{ id: string, name: string, kind: Kind }} Service
 */
export {};
