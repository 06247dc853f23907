// grid3d: a 3-D grid; every work-item writes its ids, packed:
// out[(z*GY + y)*GX + x] = (local x,y,z) | (group x,y,z) << 12..., see the
// Go reference. GX, GY, GZ are the grid sizes in work-items (from the
// dispatch packet); groups are 4x4x4.
#include "common.h"

__kernel __attribute__((reqd_work_group_size(4, 4, 4)))
void grid3d(__global uint *out) {
  uint lx = __builtin_amdgcn_workitem_id_x(), ly = __builtin_amdgcn_workitem_id_y(),
       lz = __builtin_amdgcn_workitem_id_z();
  uint gx = __builtin_amdgcn_workgroup_id_x(), gy = __builtin_amdgcn_workgroup_id_y(),
       gz = __builtin_amdgcn_workgroup_id_z();
  uint GX = rj_packet32()[3], GY = rj_packet32()[4];
  uint x = gx * 4 + lx, y = gy * 4 + ly, z = gz * 4 + lz;
  out[(z * GY + y) * GX + x] = lx | ly << 2 | lz << 4 | gx << 8 | gy << 16 | gz << 24;
}
