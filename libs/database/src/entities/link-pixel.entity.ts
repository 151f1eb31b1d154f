import { Entity, PrimaryColumn } from 'typeorm';

@Entity('link_pixels')
export class LinkPixel {
  @PrimaryColumn({ name: 'link_id', type: 'int' })
  linkId: number;

  @PrimaryColumn({ name: 'pixel_id', type: 'int' })
  pixelId: number;
}
