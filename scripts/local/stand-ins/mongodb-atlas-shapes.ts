/**
 * The wire shapes of the Atlas stand-in (mongodb-atlas-stand-in.ts): CloudDatabaseUser as
 * Atlas's reference documents it, and the CIDR checks behind `authenticationRestrictions`.
 */
import { BlockList, isIPv6 } from 'node:net';
import { z } from 'zod';

/** Atlas's versioned media type. */
export const MEDIA = 'application/vnd.atlas.2023-01-01+json';

const Role = z
  .object({
    roleName: z.string().min(1),
    databaseName: z.string().min(1),
    collectionName: z.string().optional(),
  })
  .strict();
const Label = z.object({ key: z.string(), value: z.string() }).strict();
/** CloudDatabaseUser as the Atlas reference documents it (request side). */
export const CreateUser = z
  .object({
    databaseName: z.enum(['admin', '$external']),
    groupId: z.string().min(1),
    username: z.string().min(1).max(1024),
    password: z.string().min(8).optional(),
    roles: z.array(Role).optional(),
    labels: z.array(Label).optional(),
    scopes: z
      .array(z.object({ name: z.string(), type: z.enum(['CLUSTER', 'DATA_LAKE', 'STREAM']) }).strict())
      .optional(),
    description: z.string().max(100).optional(),
    deleteAfterDate: z.iso.datetime({ offset: true }).optional(),
    // MongoDB's createUser field (see the header); serverAddress is not used by Tether.
    authenticationRestrictions: z
      .array(z.object({ clientSource: z.array(z.string().refine(isCidr, 'a CIDR')).min(1) }).strict())
      .optional(),
    awsIAMType: z.enum(['NONE', 'USER', 'ROLE']).optional(),
    ldapAuthType: z.enum(['NONE', 'USER', 'GROUP']).optional(),
    oidcAuthType: z.enum(['NONE', 'IDP_GROUP', 'USER']).optional(),
    x509Type: z.enum(['NONE', 'CUSTOMER', 'MANAGED']).optional(),
  })
  .strict();
/** The fields a user update may carry. */
export const UpdateUser = CreateUser.partial().strict();

/** A user as the stand-in keeps it. */
export interface StoredUser {
  username: string;
  databaseName: string;
  roles: Array<z.infer<typeof Role>>;
  labels: Array<z.infer<typeof Label>>;
  deleteAfterDate?: string;
  authenticationRestrictions?: Array<{ clientSource: string[] }>;
  /** Kept only so tests can check a login would work; a real cluster keeps a SCRAM verifier. */
  password: string;
}

/** `cidr` parsed into a one-range BlockList, or null when it is no CIDR. */
function range(cidr: string): BlockList | null {
  const [address = '', bits] = cidr.split('/');
  const family = isIPv6(address) ? 'ipv6' : 'ipv4';
  const list = new BlockList();
  try {
    list.addSubnet(address, Number(bits ?? (family === 'ipv6' ? 128 : 32)), family);
  } catch {
    return null;
  }
  return list;
}
function isCidr(cidr: string): boolean {
  return range(cidr) !== null;
}
/** Whether address `from` lies in `cidr`. */
export function within(from: string, cidr: string): boolean {
  return range(cidr)?.check(from, isIPv6(from) ? 'ipv6' : 'ipv4') ?? false;
}
