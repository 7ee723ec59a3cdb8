/** The MongoDB connection string apps are handed, by MONGODB_PUBLIC_HOST's form. */
import { describe, expect, it } from 'vitest';
import { mongodbUri } from './mongodb-uri';

describe('mongodbUri', () => {
  it('host:port lists give a mongodb:// string authenticating against admin', () => {
    expect(
      mongodbUri('db1.example.com:27017,db2.example.com:27017', 'c_ab12cd34', 'p@ss/w:rd', 'shop_x1'),
    ).toBe(
      'mongodb://c_ab12cd34:p%40ss%2Fw%3Ard@db1.example.com:27017,db2.example.com:27017/shop_x1?authSource=admin',
    );
  });

  it('an Atlas mongodb+srv:// host keeps its scheme (SRV turns TLS on)', () => {
    expect(mongodbUri('mongodb+srv://cluster0.ab1cd.mongodb.net/', 'c_ab12cd34', 'pw', 'shop_x1')).toBe(
      'mongodb+srv://c_ab12cd34:pw@cluster0.ab1cd.mongodb.net/shop_x1?authSource=admin',
    );
  });

  it('a mongodb:// prefix on the host is not doubled', () => {
    expect(mongodbUri('mongodb://mongo.local:27017', 'u', 'p', 'd')).toBe(
      'mongodb://u:p@mongo.local:27017/d?authSource=admin',
    );
  });
});
